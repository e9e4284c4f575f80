import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
	AlwaysOffSampler,
	AlwaysOnSampler,
	ParentBasedSampler,
	TraceIdRatioBasedSampler,
	type Sampler,
	type SpanExporter
} from '@opentelemetry/sdk-trace';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export type SamplerName =
	| 'always_on'
	| 'always_off'
	| 'traceidratio'
	| 'parentbased_always_on'
	| 'parentbased_always_off'
	| 'parentbased_traceidratio';

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the OpenTelemetry environment spec defines them (ratio 1 by default). */
export function samplerOf(name: SamplerName, ratio = 1): Sampler {
	switch (name) {
		case 'always_on':
			return new AlwaysOnSampler();
		case 'always_off':
			return new AlwaysOffSampler();
		case 'traceidratio':
			return new TraceIdRatioBasedSampler(ratio);
		case 'parentbased_always_on':
			return new ParentBasedSampler({ root: new AlwaysOnSampler() });
		case 'parentbased_always_off':
			return new ParentBasedSampler({ root: new AlwaysOffSampler() });
		case 'parentbased_traceidratio':
			return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
	}
}

/**
 * The OTLP/HTTP exporter of `protocol`. A collector that is down or slow costs only the batch being
 * sent: the batch processor exports in the background and drops what it cannot send, so a run
 * never waits for it. `timeoutMillis` bounds each export.
 */
export function traceExporter(options: { url: string; protocol: OtlpProtocol; headers: Record<string, string>; timeoutMillis: number }): SpanExporter {
	const config = { url: options.url, headers: options.headers, timeoutMillis: options.timeoutMillis };
	return options.protocol === 'http/json' ? new JsonExporter(config) : new ProtobufExporter(config);
}
