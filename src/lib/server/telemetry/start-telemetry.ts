import { MetricsRegistry, type MetricSources } from './metrics-registry';
import { RunTracer } from './run-tracer';
import { Telemetry } from './telemetry';
import { samplerOf, traceExporter, type SamplerName } from './trace-exporter';
import type { TraceExport } from './otlp-settings';

export type TelemetryOptions = {
	/** Null: tracing off (no OTLP endpoint set); metrics are always kept. */
	traces: TraceExport | null;
	sampler: SamplerName;
	samplerRatio?: number;
	batchDelayMs: number;
	serviceName: string;
	/** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: the messages sent, answers, tool arguments and results on spans. */
	captureContent: boolean;
	/** Takes the known secrets out of captured content. */
	redact: (text: string) => string;
	instance: string;
	/** A shared database: the lease and takeover counters are reported. */
	leases: boolean;
	sources: MetricSources;
};

/** The metrics registry, and the tracer when traces are exported. */
export function startTelemetry(options: TelemetryOptions): Telemetry {
	const metrics = new MetricsRegistry(options.sources, { leases: options.leases });
	const tracer =
		options.traces &&
		new RunTracer({
			exporter: traceExporter(options.traces),
			sampler: samplerOf(options.sampler, options.samplerRatio),
			batchDelayMs: options.batchDelayMs,
			serviceName: options.serviceName,
			instance: options.instance
		});
	return new Telemetry(metrics, tracer, options.captureContent ? { redact: options.redact } : null);
}
