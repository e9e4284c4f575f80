/**
 * Pure. The body of a run of the LangGraph Agent Server protocol (the SDK's RunCreate), and what it
 * asks Sophos to do: a message, a resume, decisions on the calls a thread waits on, an edit or a
 * regenerate from a checkpoint. Options the protocol has and Sophos does not do are named for a
 * 501 (`UNSUPPORTED_RUN_FIELDS`), never ignored.
 */
import { z } from '../../protocol/zod';
import { ApiError } from '../errors';
import type { IfBusy } from '../../protocol';
import { parseLastEventId } from '../stream/sse-response';
import { HumanContentSchema, humanText } from './human-content';
import { isAssistantId } from './assistant';
import { CheckpointRefSchema, MetadataSchema, parseProtocolBody } from './request-schemas';

/** The protocol's stream modes Sophos streams; the others are refused by name. */
export const STREAM_MODES = ['values', 'messages-tuple', 'updates', 'custom'] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/**
 * What a run does when its thread already has one. `reject` is the default, as in LangGraph's own
 * servers: a client that wants its message to wait says `enqueue`.
 */
export const MultitaskStrategySchema = z.enum(['reject', 'enqueue', 'interrupt', 'rollback']);
export type MultitaskStrategy = z.infer<typeof MultitaskStrategySchema>;

const MessageInputSchema = z.object({
	type: z.enum(['human', 'user', 'ai', 'assistant', 'tool', 'system']).optional(),
	role: z.enum(['human', 'user', 'ai', 'assistant', 'tool', 'system']).optional(),
	content: HumanContentSchema,
	id: z.string().min(1).max(200).nullish(),
	tool_call_id: z.string().optional(),
	name: z.string().nullish(),
	additional_kwargs: z.record(z.string(), z.unknown()).optional(),
	response_metadata: z.record(z.string(), z.unknown()).optional(),
	tool_calls: z.array(z.unknown()).optional(),
	status: z.string().optional()
});
type MessageInput = z.infer<typeof MessageInputSchema>;

const RunInputSchema = z.strictObject({
	messages: z.union([z.array(MessageInputSchema).max(1000), MessageInputSchema])
});

/** agent-chat-ui's and LangChain's HITL decisions, answered by position to the interrupt's action requests. */
const HitlDecisionSchema = z.discriminatedUnion('type', [
	z.object({ type: z.literal('approve') }),
	z.object({
		type: z.literal('edit'),
		edited_action: z.object({ name: z.string().optional(), args: z.record(z.string(), z.unknown()) })
	}),
	z.object({ type: z.literal('reject'), message: z.string().max(2_000).optional() })
]);
export type HitlDecision = z.infer<typeof HitlDecisionSchema>;

const ResumeValueSchema = z.strictObject({ decisions: z.array(HitlDecisionSchema).min(1).max(100) });

const CommandSchema = z.strictObject({
	/** `{decisions}`, or `{<interrupt id>: {decisions}}` naming the interrupt it answers. */
	resume: z.union([ResumeValueSchema, z.record(z.string(), ResumeValueSchema)]).nullish(),
	goto: z.union([z.literal('__end__'), z.array(z.literal('__end__')).length(1)]).nullish(),
	update: z.unknown().optional()
});

export const RunCreateSchema = z.strictObject({
	assistant_id: z.string().refine(isAssistantId, 'unknown assistant: this server has one, "agent"'),
	input: RunInputSchema.nullish(),
	command: CommandSchema.nullish(),
	metadata: MetadataSchema.nullish(),
	config: z.record(z.string(), z.unknown()).nullish(),
	context: z.unknown().optional(),
	checkpoint: CheckpointRefSchema.nullish(),
	checkpoint_id: z.string().min(1).max(200).nullish(),
	checkpoint_during: z.boolean().nullish(),
	strict_resume: z.boolean().nullish(),
	durability: z.enum(['sync', 'async', 'exit']).nullish(),
	stream_mode: z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES)).max(STREAM_MODES.length)]).nullish(),
	stream_subgraphs: z.boolean().nullish(),
	stream_resumable: z.boolean().nullish(),
	multitask_strategy: MultitaskStrategySchema.nullish(),
	on_disconnect: z.enum(['cancel', 'continue']).nullish(),
	if_not_exists: z.enum(['create', 'reject']).nullish(),
	on_completion: z.enum(['delete', 'keep']).nullish(),
	interrupt_before: z.unknown().optional(),
	interrupt_after: z.unknown().optional(),
	webhook: z.unknown().optional(),
	after_seconds: z.unknown().optional(),
	feedback_keys: z.unknown().optional(),
	langsmith_tracer: z.unknown().optional()
});
export type RunCreate = z.infer<typeof RunCreateSchema>;

/** Present and not null, any of these answers 501: Sophos pauses only for approvals, and has no webhooks or delays. */
export const UNSUPPORTED_RUN_FIELDS = ['interrupt_before', 'interrupt_after', 'webhook', 'after_seconds'] as const;

/** A run body checked: 422 naming the field the schema refuses, 501 naming an option Sophos does not do. */
export function parseRunCreate(body: unknown): RunCreate {
	const parsed = parseProtocolBody(RunCreateSchema, body);
	const unsupported = UNSUPPORTED_RUN_FIELDS.find((f) => parsed[f] !== undefined && parsed[f] !== null);
	if (unsupported) throw new ApiError('NOT_IMPLEMENTED', `"${unsupported}" is not supported by Sophos: it pauses only for approvals, and has no webhooks or delayed runs`);
	return parsed;
}

/** GET /threads/{id}/runs's query. */
export const RunListQuerySchema = z.strictObject({
	limit: z.coerce.number().int().min(1).max(1000).default(10),
	offset: z.coerce.number().int().min(0).default(0),
	status: z.enum(['pending', 'running', 'success', 'error', 'interrupted']).optional(),
	select: z.string().optional()
});

/** POST …/cancel's query: `wait` as the SDK sends it ("0"/"1"), or a boolean word. */
export const CancelQuerySchema = z.strictObject({
	wait: z.enum(['0', '1', 'true', 'false']).default('0').transform((w) => w === '1' || w === 'true'),
	action: z.enum(['interrupt', 'rollback']).default('interrupt'),
	reason: z.string().max(200).optional()
});

/**
 * GET …/stream's query as JoinStreamQuerySchema reads it. `stream_mode` comes repeated (the SDK
 * since 1.x appends each mode) or, from earlier 1.x releases (1.0.0, which agent-chat-ui still
 * resolves), as one JSON array; anything else is left as sent for the schema to name.
 */
export function joinStreamQueryOf(params: URLSearchParams): Record<string, unknown> {
	const modes = params.getAll('stream_mode');
	const query: Record<string, unknown> = Object.fromEntries(params);
	if (modes.length > 1) query.stream_mode = modes;
	else if (modes.length === 1 && modes[0]!.startsWith('[')) {
		try {
			query.stream_mode = JSON.parse(modes[0]!);
		} catch {
			// Not JSON: the schema refuses it, naming the field.
		}
	}
	return query;
}

/** The protocol's Last-Event-ID: `-1` means from the first event, as does no header. */
export function protocolLastEventId(header: string | null): number {
	return header === '-1' ? 0 : parseLastEventId(header);
}

/** GET …/stream's query. */
export const JoinStreamQuerySchema = z.strictObject({
	cancel_on_disconnect: z.enum(['0', '1', 'true', 'false']).default('0').transform((w) => w === '1' || w === 'true'),
	stream_mode: z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))]).optional(),
	/** Sophos has one namespace, the root graph's; `checkpoint_id` is accepted as the JS server does and means nothing more. */
	namespace: z.string().optional(),
	checkpoint_id: z.string().optional()
});

/** The run id in a path: a uuid; 422 naming `run_id` otherwise. */
export function parseRunId(param: string | undefined): string {
	const parsed = z.uuid().safeParse(param);
	if (!parsed.success) throw new ApiError('VALIDATION_FAILED', 'Invalid field "run_id": expected a UUID');
	return parsed.data.toLowerCase();
}

/** What a run body asks for, before the thread is read. */
export type RunIntent =
	/** A human message: the text, and the client's id for it, which makes a retried POST the same run. */
	| { kind: 'message'; text: string; clientMessageId: string | null; checkpointId: string | null }
	/** No input: a resume of an interrupted thread, or from a checkpoint a regenerate. */
	| { kind: 'no-input'; checkpointId: string | null }
	/** Decisions by position; `interruptId` when the client named the interrupt it answers. */
	| { kind: 'decide'; decisions: HitlDecision[]; interruptId: string | null }
	/** `goto: "__end__"`, or client-made tool messages alone: every waiting call is denied. */
	| { kind: 'deny-all'; reason: string };

export type RunOptions = {
	streamModes: StreamMode[];
	multitask: MultitaskStrategy;
	/** The busy rule RunService applies; `rollback` cancels as `interrupt` does, then starts a branch. */
	ifBusy: IfBusy;
	onDisconnect: 'cancel' | 'continue';
	createThread: boolean;
};

/** A client's tool message is not a tool result (agent-chat-ui sends one for every dangling call): it says the conversation moved on. */
export const MOVED_ON = 'the conversation moved on';

const typeOf = (m: MessageInput) => m.type ?? m.role ?? 'human';

function intentOfInput(input: NonNullable<RunCreate['input']>, checkpointId: string | null, maxMessageChars: number): RunIntent {
	const messages = Array.isArray(input.messages) ? input.messages : [input.messages];
	const humans: [MessageInput, number][] = [];
	for (const [i, m] of messages.entries()) {
		const type = typeOf(m);
		if (type === 'human' || type === 'user') humans.push([m, i]);
		else if (type !== 'tool') {
			throw new ApiError('VALIDATION_FAILED', `Invalid field "input.messages.${i}.type": a run takes human messages (and tool messages, read as "moved on")`);
		}
	}
	if (humans.length === 0) {
		if (messages.length === 0) throw new ApiError('VALIDATION_FAILED', 'Invalid field "input.messages": a run needs a human message');
		return { kind: 'deny-all', reason: MOVED_ON };
	}
	if (humans.length > 1) throw new ApiError('VALIDATION_FAILED', 'Invalid field "input.messages": one human message per run');
	const [message, index] = humans[0]!;
	const text = humanText(message.content, `input.messages.${index}.content`).trim();
	if (!text) throw new ApiError('VALIDATION_FAILED', `Invalid field "input.messages.${index}.content": the message is empty`);
	if (text.length > maxMessageChars) throw new ApiError('MESSAGE_TOO_LARGE', `Message must be at most ${maxMessageChars} characters`);
	return { kind: 'message', text, clientMessageId: message.id ?? null, checkpointId };
}

function intentOfCommand(command: NonNullable<RunCreate['command']>): RunIntent {
	if (command.update !== undefined && command.update !== null) {
		throw new ApiError('NOT_IMPLEMENTED', 'command.update is not supported: Sophos changes a thread only through runs');
	}
	if (command.goto) {
		if (command.resume) throw new ApiError('VALIDATION_FAILED', 'Invalid field "command": give resume or goto, not both');
		return { kind: 'deny-all', reason: 'The person ended the run instead of deciding.' };
	}
	const resume = command.resume;
	if (!resume) throw new ApiError('VALIDATION_FAILED', 'Invalid field "command": resume or goto is required');
	if ('decisions' in resume && Array.isArray(resume.decisions)) {
		return { kind: 'decide', decisions: resume.decisions as HitlDecision[], interruptId: null };
	}
	const entries = Object.entries(resume as Record<string, { decisions: HitlDecision[] }>);
	if (entries.length !== 1) throw new ApiError('VALIDATION_FAILED', 'Invalid field "command.resume": answer the one interrupt the thread has');
	const [interruptId, value] = entries[0]!;
	return { kind: 'decide', decisions: value.decisions, interruptId };
}

/** What a run body asks for, and how the run goes. */
export type RunRequest = { intent: RunIntent; options: RunOptions };

/** The intent and options of a parsed body; throws ApiError for combinations that mean nothing. */
export function readRunCreate(body: RunCreate, maxMessageChars: number): RunRequest {
	const checkpointId = body.checkpoint?.checkpoint_id ?? body.checkpoint_id ?? null;
	const hasInput = body.input !== undefined && body.input !== null;
	if (body.command && hasInput) throw new ApiError('VALIDATION_FAILED', 'Invalid field "command": give input or command, not both');
	if (body.command && checkpointId) throw new ApiError('VALIDATION_FAILED', 'Invalid field "checkpoint": a command answers the thread as it is now');
	const intent = body.command
		? intentOfCommand(body.command)
		: hasInput
			? intentOfInput(body.input!, checkpointId, maxMessageChars)
			: ({ kind: 'no-input', checkpointId } as const);
	if (intent.kind === 'deny-all' && checkpointId) throw new ApiError('VALIDATION_FAILED', 'Invalid field "checkpoint": tool messages alone start no branch');
	const modes = body.stream_mode == null ? ['values' as const] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
	const multitask = body.multitask_strategy ?? 'reject';
	return {
		intent,
		options: {
			streamModes: modes.length ? [...new Set(modes)] : ['values'],
			multitask,
			ifBusy: multitask === 'rollback' ? 'interrupt' : multitask,
			onDisconnect: body.on_disconnect ?? 'continue',
			createThread: body.if_not_exists === 'create'
		}
	};
}

/**
 * A run body as the runtime takes it: checked, read, and for a run without a thread (POST
 * /runs/stream, /runs/wait) one with a human message, which is what starts its thread.
 */
export function parseRunRequest(body: unknown, maxMessageChars: number, thread: 'on-thread' | 'thread-less'): RunRequest {
	const request = readRunCreate(parseRunCreate(body), maxMessageChars);
	if (thread === 'thread-less' && request.intent.kind !== 'message') {
		throw new ApiError('VALIDATION_FAILED', 'Invalid field "input": a run without a thread starts one, with a human message');
	}
	return request;
}
