import { MetricsRegistry, type MetricSources } from './metrics-registry';
import type { PoolUse } from './pool-metrics';
import { RunTracer } from './run-tracer';
import { Telemetry, type LogScope } from './telemetry';
import { samplerOf, traceExporter, type SamplerName } from './trace-exporter';
import { traceExportOf, type OtlpSettings, type TraceExport } from './otlp-settings';

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
	/** A shared database's connection pool, whose figures are reported (`sophos_db_pool_*`); null on SQLite. */
	pool: PoolUse | null;
	sources: MetricSources;
};

/** The metrics registry, and the tracer when traces are exported. */
export function startTelemetry(options: TelemetryOptions): Telemetry {
	const metrics = new MetricsRegistry(options.sources, { leases: options.leases, pool: options.pool });
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

/** The OTEL_* settings the service's telemetry is started from (settings.ts reads them). */
export type TelemetrySettings = OtlpSettings & {
	OTEL_TRACES_SAMPLER: SamplerName;
	OTEL_TRACES_SAMPLER_ARG?: number;
	OTEL_BSP_SCHEDULE_DELAY: number;
	OTEL_SERVICE_NAME: string;
	OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: boolean;
};

/**
 * The scope the service's log lines carry. The log is made first (opening the database logs) and
 * telemetry needs the database and the MCP servers for its gauges, so the log reads its scope
 * through this: nothing until telemetry starts, when no run is in flight yet, then telemetry's.
 */
export class LogScopeSource {
	private telemetry: Pick<Telemetry, 'logScope'> | null = null;

	readonly scope = (): LogScope => this.telemetry?.logScope() ?? {};

	follow(telemetry: Pick<Telemetry, 'logScope'>): void {
		this.telemetry = telemetry;
	}
}

export type ServiceTelemetryParts = Pick<TelemetryOptions, 'instance' | 'leases' | 'pool' | 'sources' | 'redact'> & { logScope: LogScopeSource };

/** The service's telemetry as its settings ask; its log lines carry telemetry's scope from now on. */
export function startServiceTelemetry(settings: TelemetrySettings, parts: ServiceTelemetryParts): Telemetry {
	const { logScope, ...rest } = parts;
	const telemetry = startTelemetry({
		traces: traceExportOf(settings),
		sampler: settings.OTEL_TRACES_SAMPLER,
		samplerRatio: settings.OTEL_TRACES_SAMPLER_ARG,
		batchDelayMs: settings.OTEL_BSP_SCHEDULE_DELAY,
		serviceName: settings.OTEL_SERVICE_NAME,
		captureContent: settings.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
		...rest
	});
	logScope.follow(telemetry);
	return telemetry;
}
