import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { BatchSpanProcessor, TracerProvider, type Sampler, type SpanExporter } from '@opentelemetry/sdk-trace';
import { AGENT_NAME, OPERATION, SOPHOS } from './gen-ai-attributes';
import { AttemptIdGenerator, attemptIds } from './run-ids';

export type TracerOptions = {
	exporter: SpanExporter;
	sampler: Sampler;
	/** OTEL_BSP_SCHEDULE_DELAY: how long ended spans wait to be sent together. */
	batchDelayMs: number;
	serviceName: string;
	instance: string;
};

/** Ids for a log line: the span a line was written under. */
export type SpanIds = { traceId: string; spanId: string };

const propagator = new W3CTraceContextPropagator();

/** How long close waits for the last spans to reach the collector: a collector that is away does not hold a shutdown. */
const FLUSH_MS = 2_000;

/**
 * The run's spans, following the GenAI conventions: one invoke_agent span per run attempt, and under
 * it a chat span per model call and an execute_tool span per tool call. Children find their attempt
 * by run id (the graph's config carries it), not through an async context, so a span is never
 * parented by whatever happened to be active.
 */
export class RunTracer {
	private readonly provider: TracerProvider;
	private readonly ids = new AttemptIdGenerator();
	private readonly attempts = new Map<string, Context>();
	private readonly tracer;

	constructor(options: TracerOptions) {
		this.provider = new TracerProvider({
			resource: resourceFromAttributes({
				[ATTR_SERVICE_NAME]: options.serviceName,
				[ATTR_SERVICE_INSTANCE_ID]: options.instance
			}),
			sampler: options.sampler,
			idGenerator: this.ids,
			spanProcessors: [new BatchSpanProcessor({ exporter: options.exporter, scheduledDelayMillis: options.batchDelayMs })]
		});
		this.tracer = this.provider.getTracer('sophos');
	}

	/**
	 * The attempt's invoke_agent span, with ids derived from the run id; `continues`: the run whose
	 * attempt this one carries on (a resume after a crash or a takeover, or a person's decision),
	 * linked rather than parented, since that span ended with its process or its wait.
	 */
	startAttempt(runId: string, attributes: Attributes, continues: string | null): Span {
		const links = continues
			? [{ context: { ...attemptIds(continues), traceFlags: 1, isRemote: true }, attributes: { [SOPHOS.continuesRun]: continues } }]
			: [];
		const span = this.ids.withIds(attemptIds(runId), () =>
			this.tracer.startSpan(
				`${OPERATION.invokeAgent} ${AGENT_NAME}`,
				{ kind: SpanKind.INTERNAL, root: true, links, attributes },
				context.active()
			)
		);
		this.attempts.set(runId, trace.setSpan(context.active(), span));
		return span;
	}

	endAttempt(runId: string, span: Span, attributes: Attributes, error: string | undefined): void {
		this.attempts.delete(runId);
		span.setAttributes(attributes);
		if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
		span.end();
	}

	/** A chat or execute_tool span under the run's attempt; a root span when the attempt is unknown here. */
	startChild(runId: string, name: string, kind: SpanKind, attributes: Attributes): Span {
		const parent = this.attempts.get(runId);
		return this.tracer.startSpan(name, { kind, attributes, ...(parent ? {} : { root: true }) }, parent ?? context.active());
	}

	/** `traceparent` and `tracestate` of `span`, for an MCP request's `params._meta`. */
	carrier(span: Span): Record<string, string> {
		const carrier: Record<string, string> = {};
		propagator.inject(trace.setSpan(context.active(), span), carrier, { set: (c, k, v) => (c[k] = v) });
		return carrier;
	}

	/** The attempt's ids, when the run is traced here. */
	idsOf(runId: string): SpanIds | undefined {
		const span = this.attempts.get(runId) && trace.getSpan(this.attempts.get(runId)!);
		const ctx = span?.spanContext();
		return ctx ? { traceId: ctx.traceId, spanId: ctx.spanId } : undefined;
	}

	/** Sends what is left within FLUSH_MS, then stops; never rejects. */
	async close(): Promise<void> {
		let timer: NodeJS.Timeout | undefined;
		const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_MS)));
		await Promise.race([this.provider.shutdown().catch(() => {}), deadline]);
		clearTimeout(timer);
	}
}
