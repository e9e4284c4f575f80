import { describe, expect, it } from 'vitest';
import { parseOtlpHeaders, traceExportOf } from '../../../src/lib/server/telemetry/otlp-settings';
import { parseSettings, SettingsError } from '../../../src/lib/server/settings';

describe('OTLP settings', () => {
	it('parses OTEL_EXPORTER_OTLP_HEADERS as percent-encoded key=value pairs', () => {
		expect(parseOtlpHeaders('Authorization=Bearer%20abc, x-team = core ,')).toEqual({ authorization: 'Bearer abc', 'x-team': 'core' });
		expect(() => parseOtlpHeaders('novalue')).toThrow('entry 1 is not key=value');
		expect(() => parseOtlpHeaders('k=%E0%A4%A')).toThrow('"k" is not percent-encoded correctly');
	});

	it('resolves the traces URL, protocol and headers as the spec does; off without an endpoint', () => {
		const base = { OTEL_EXPORTER_OTLP_TIMEOUT: 10_000 };
		expect(traceExportOf(base)).toBeNull();
		expect(traceExportOf({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toEqual({
			url: 'http://c:4318/v1/traces',
			protocol: 'http/protobuf',
			headers: {},
			timeoutMillis: 10_000
		});
		expect(
			traceExportOf({
				...base,
				OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
				OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/traces',
				OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
				OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
				OTEL_EXPORTER_OTLP_HEADERS: { a: '1', b: '1' },
				OTEL_EXPORTER_OTLP_TRACES_HEADERS: { b: '2' }
			})
		).toEqual({ url: 'http://t:9/traces', protocol: 'http/json', headers: { a: '1', b: '2' }, timeoutMillis: 10_000 });
	});

	it.each([
		['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318', /OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318": expected an http/],
		['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'ftp://c/x', /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="ftp:\/\/c\/x"/],
		['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc', /OTEL_EXPORTER_OTLP_PROTOCOL="grpc": expected http\/protobuf or http\/json \(grpc is not supported\)/],
		['OTEL_TRACES_SAMPLER', 'sometimes', /OTEL_TRACES_SAMPLER="sometimes"/],
		['OTEL_TRACES_SAMPLER_ARG', '2', /OTEL_TRACES_SAMPLER_ARG="2"/],
		['LOG_FORMAT', 'xml', /LOG_FORMAT="xml"/]
	])('%s=%s is refused, naming the variable', (name, value, message) => {
		expect(() => parseSettings({ [name]: value })).toThrow(SettingsError);
		expect(() => parseSettings({ [name]: value })).toThrow(message);
	});

	it('a refused header setting is not echoed: it holds a collector key', () => {
		expect(() => parseSettings({ OTEL_EXPORTER_OTLP_HEADERS: 'secret-key-without-equals' })).toThrow(
			'OTEL_EXPORTER_OTLP_HEADERS=(hidden): entry 1 is not key=value'
		);
	});
});
