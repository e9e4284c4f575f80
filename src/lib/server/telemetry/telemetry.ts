import { AsyncLocalStorage } from 'node:async_hooks';
import { SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import { AGENT_NAME, GEN_AI, GENERAL, MCP, OPERATION, SOPHOS } from './gen-ai-attributes';
import type { MetricsRegistry, ToolOutcomeLabel } from './metrics-registry';
import type { RunTracer } from './run-tracer';

/** A run attempt as it starts: `continues` names the run whose attempt it carries on, if any. */
export type AttemptStart = { runId: string; conversationId: string; trigger: string; continues: string | null };

/** `recorded`: the outcome was written (a fenced or failed write leaves the count to whoever wrote it). */
export type AttemptEnd = { status: string; recorded: boolean; fenced?: boolean; errorType?: string };

export type ChatStart = { provider: string; providerKind: string; model: string; address: string };

/** What the provider said of one answer (models/answer-facts.ts). */
export type ChatAnswer = {
	inputTokens?: number;
	outputTokens?: number;
	reasoningTokens?: number;
	firstTokenMs?: number;
	durationMs?: number;
	responseModel?: string;
	finishReasons: string[];
	/** The answer's text, exported only when message content capture is on. */
	text: string;
};

export type ToolStart = { tool: string; callId: string; server?: string; transport?: string; session?: string; args: unknown };

export interface AttemptRecorder {
	/** Runs `work` with the attempt's ids on every log line written inside it. */
	within<T>(work: () => Promise<T>): Promise<T>;
	end(outcome: AttemptEnd): void;
}

export interface ChatRecorder {
	/** The messages sent, in the conventions' JSON shape; `messages` is called only when content is captured. */
	sending(messages: () => unknown[]): void;
	answered(answer: ChatAnswer): void;
	failed(errorType: string): void;
}

export interface ToolRecorder {
	/** `traceparent` and `tracestate` for the call's `params._meta`; empty when tracing is off. */
	meta(): Record<string, string>;
	end(outcome: ToolOutcomeLabel, result?: string): void;
}

type Scope = { runId: string; conversationId: string };

/** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT on: how captured content is cleaned of secrets. */
export type ContentCapture = { redact: (text: string) => string };

/** What a log line written now adds: the run it belongs to, and its span when tracing is on. */
export type LogScope = { run?: string; conversation?: string; trace_id?: string; span_id?: string };

type Usage = { input: number; output: number; provider?: string };

const seconds = (ms: number) => ms / 1000;

/**
 * Where every part reports what it did: the metrics registry always, the tracer when OTLP export is
 * configured. Callers hold the narrow recorder a seam needs (one per run attempt, model call, tool
 * call), so runs/, models/ and tools/ know nothing of Prometheus or OpenTelemetry.
 */
export class Telemetry {
	private readonly scope = new AsyncLocalStorage<Scope>();
	private readonly usage = new Map<string, Usage>();

	/** `capture`: message and tool content goes on spans, with the known secrets taken out by `redact`; null: it never does. */
	constructor(
		readonly metrics: MetricsRegistry,
		private readonly tracer: RunTracer | null,
		private readonly capture: ContentCapture | null
	) {}

	attempt(start: AttemptStart): AttemptRecorder {
		const began = performance.now();
		const usage: Usage = { input: 0, output: 0 };
		this.usage.set(start.runId, usage);
		const span = this.tracer?.startAttempt(
			start.runId,
			{
				[GEN_AI.operationName]: OPERATION.invokeAgent,
				[GEN_AI.agentName]: AGENT_NAME,
				[GEN_AI.conversationId]: start.conversationId,
				[SOPHOS.runId]: start.runId,
				[SOPHOS.runTrigger]: start.trigger
			},
			start.continues
		);
		const scope = { runId: start.runId, conversationId: start.conversationId };
		return {
			within: (work) => this.scope.run(scope, work),
			end: (outcome) => {
				this.usage.delete(start.runId);
				this.metrics.runDuration.observe({ status: outcome.status }, seconds(performance.now() - began));
				if (outcome.recorded) this.metrics.runs.inc({ status: outcome.status, trigger: start.trigger });
				if (outcome.fenced) this.metrics.fencedWrites.inc();
				if (!span) return;
				this.tracer!.endAttempt(
					start.runId,
					span,
					{
						[SOPHOS.runStatus]: outcome.status,
						[GEN_AI.inputTokens]: usage.input,
						[GEN_AI.outputTokens]: usage.output,
						...(usage.provider ? { [GEN_AI.providerName]: usage.provider } : {}),
						...(outcome.errorType ? { [GENERAL.errorType]: outcome.errorType } : {})
					},
					outcome.errorType
				);
			}
		};
	}

	/** An outcome recovery recorded for a run whose owner died (runs/run-recovery.ts). */
	recovered(status: string, trigger: string): void {
		this.metrics.runs.inc({ status, trigger });
	}

	chat(runId: string, call: ChatStart): ChatRecorder {
		const labels = { provider: call.provider, model: call.model };
		const began = performance.now();
		const span = this.tracer?.startChild(runId, `${OPERATION.chat} ${call.model}`, SpanKind.CLIENT, {
			[GEN_AI.operationName]: OPERATION.chat,
			[GEN_AI.providerName]: call.providerKind,
			[GEN_AI.requestModel]: call.model,
			...serverOf(call.address)
		});
		const usage = this.usage.get(runId);
		if (usage) usage.provider ??= call.providerKind;
		const capture = span && this.capture;
		return {
			sending: (messages) => {
				if (capture) span.setAttribute(GEN_AI.inputMessages, capture.redact(JSON.stringify(messages())));
			},
			answered: (answer) => {
				const m = this.metrics;
				m.modelRequests.inc({ ...labels, outcome: 'success' });
				if (answer.inputTokens !== undefined) m.modelTokens.inc({ ...labels, direction: 'input' }, answer.inputTokens);
				if (answer.outputTokens !== undefined) m.modelTokens.inc({ ...labels, direction: 'output' }, answer.outputTokens);
				if (answer.firstTokenMs !== undefined) m.modelFirstToken.observe(labels, seconds(answer.firstTokenMs));
				m.modelDuration.observe(labels, seconds(answer.durationMs ?? performance.now() - began));
				if (usage) {
					usage.input += answer.inputTokens ?? 0;
					usage.output += answer.outputTokens ?? 0;
				}
				if (!span) return;
				span.setAttributes(chatAttributes(answer, this.capture));
				span.end();
			},
			failed: (errorType) => {
				this.metrics.modelRequests.inc({ ...labels, outcome: errorType });
				this.metrics.modelDuration.observe(labels, seconds(performance.now() - began));
				if (!span) return;
				failSpan(span, errorType);
			}
		};
	}

	tool(runId: string, call: ToolStart): ToolRecorder {
		const began = performance.now();
		const span = this.tracer?.startChild(runId, `${OPERATION.executeTool} ${call.tool}`, SpanKind.INTERNAL, {
			[GEN_AI.operationName]: OPERATION.executeTool,
			[GEN_AI.toolName]: call.tool,
			[GEN_AI.toolCallId]: call.callId,
			[GEN_AI.toolType]: 'extension',
			...(call.server ? { [MCP.methodName]: 'tools/call', [MCP.networkTransport]: transportOf(call.transport) } : {}),
			...(call.session ? { [MCP.sessionId]: call.session } : {}),
			...(this.capture ? { [GEN_AI.toolCallArguments]: this.capture.redact(JSON.stringify(call.args)) } : {})
		});
		return {
			meta: () => (span ? this.tracer!.carrier(span) : {}),
			end: (outcome, result) => {
				this.metrics.toolCalls.inc({ tool: call.tool, outcome });
				this.metrics.toolDuration.observe({ tool: call.tool }, seconds(performance.now() - began));
				if (!span) return;
				span.setAttribute(SOPHOS.toolOutcome, outcome);
				if (this.capture && result !== undefined) span.setAttribute(GEN_AI.toolCallResult, this.capture.redact(result));
				if (outcome === 'error' || outcome === 'cancelled' || outcome === 'unknown') failSpan(span, outcome);
				else span.end();
			}
		};
	}

	/** `decision`: approve, edit or deny (an approval that timed out is denied). */
	approval(decision: string): void {
		this.metrics.approvals.inc({ decision });
	}

	/** `route`: the route's pattern (`/api/conversations/[id]`), never its path, so ids stay out of labels. */
	httpRequest(route: string, status: number, ms: number): void {
		this.metrics.httpRequests.inc({ route, status: String(status) });
		this.metrics.httpDuration.observe({ route }, seconds(ms));
	}

	/** An SSE response began following a live run; the function returned is called once as it ends. */
	sseStreamOpened(): () => void {
		this.metrics.sseStreams.inc();
		let open = true;
		return () => {
			if (open) this.metrics.sseStreams.dec();
			open = false;
		};
	}

	/** What a log line written now belongs to. */
	logScope(): LogScope {
		const scope = this.scope.getStore();
		if (!scope) return {};
		const ids = this.tracer?.idsOf(scope.runId);
		return {
			run: scope.runId,
			conversation: scope.conversationId,
			...(ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {})
		};
	}

	async close(): Promise<void> {
		this.metrics.close();
		await this.tracer?.close();
	}
}

function failSpan(span: Span, errorType: string): void {
	span.setAttribute(GENERAL.errorType, errorType);
	span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
	span.end();
}

function chatAttributes(answer: ChatAnswer, capture: ContentCapture | null): Attributes {
	const a: Attributes = { [GEN_AI.responseFinishReasons]: answer.finishReasons };
	if (answer.responseModel) a[GEN_AI.responseModel] = answer.responseModel;
	if (answer.inputTokens !== undefined) a[GEN_AI.inputTokens] = answer.inputTokens;
	if (answer.outputTokens !== undefined) a[GEN_AI.outputTokens] = answer.outputTokens;
	if (answer.reasoningTokens !== undefined) a[GEN_AI.reasoningTokens] = answer.reasoningTokens;
	if (answer.firstTokenMs !== undefined) a[GEN_AI.timeToFirstChunk] = seconds(answer.firstTokenMs);
	if (capture) a[GEN_AI.outputMessages] = capture.redact(JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer.text }] }]));
	return a;
}

/** server.address and server.port of a model server's base URL; its user and password stay out. */
function serverOf(address: string): Attributes {
	try {
		const url = new URL(address);
		const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
		return { [GENERAL.serverAddress]: url.hostname, [GENERAL.serverPort]: port };
	} catch {
		return {};
	}
}

/** network.transport of an MCP connection: a child's stdio is a pipe, the rest TCP. */
function transportOf(transport: string | undefined): string {
	return transport === 'stdio' ? 'pipe' : 'tcp';
}
