import type { OtlpProtocol, SamplerName } from './trace-exporter';

/** Pure. The protocols Sophos exports traces in; `grpc` (the spec's third) is refused by name at start. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const satisfies readonly OtlpProtocol[];

export const SAMPLERS = [
	'always_on',
	'always_off',
	'traceidratio',
	'parentbased_always_on',
	'parentbased_always_off',
	'parentbased_traceidratio'
] as const satisfies readonly SamplerName[];

/**
 * Pure. OTEL_EXPORTER_OTLP_HEADERS as the OpenTelemetry spec writes it: `key=value` pairs split by
 * commas, values percent-encoded. Throws on a pair without a key or `=`, without echoing the value.
 */
export function parseOtlpHeaders(text: string): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [i, pair] of text.split(',').entries()) {
		if (pair.trim() === '') continue;
		const at = pair.indexOf('=');
		const key = at > 0 ? pair.slice(0, at).trim() : '';
		if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) throw new Error(`entry ${i + 1} is not key=value`);
		try {
			headers[key.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
		} catch {
			throw new Error(`the value of "${key}" is not percent-encoded correctly`);
		}
	}
	return headers;
}

export type OtlpSettings = {
	OTEL_EXPORTER_OTLP_ENDPOINT?: string;
	OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
	OTEL_EXPORTER_OTLP_PROTOCOL?: OtlpProtocol;
	OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: OtlpProtocol;
	OTEL_EXPORTER_OTLP_HEADERS?: Record<string, string>;
	OTEL_EXPORTER_OTLP_TRACES_HEADERS?: Record<string, string>;
	OTEL_EXPORTER_OTLP_TIMEOUT: number;
};

export type TraceExport = { url: string; protocol: OtlpProtocol; headers: Record<string, string>; timeoutMillis: number };

/**
 * Pure. Where traces go, as the spec resolves it: the traces endpoint as it is, else the general
 * endpoint with `/v1/traces` appended; null (tracing off) when neither is set. The traces-specific
 * protocol and headers win over the general ones; http/protobuf is the default protocol.
 */
export function traceExportOf(s: OtlpSettings): TraceExport | null {
	const url =
		s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
		(s.OTEL_EXPORTER_OTLP_ENDPOINT ? `${s.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : undefined);
	if (!url) return null;
	return {
		url,
		protocol: s.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? s.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
		headers: { ...s.OTEL_EXPORTER_OTLP_HEADERS, ...s.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
		timeoutMillis: s.OTEL_EXPORTER_OTLP_TIMEOUT
	};
}
