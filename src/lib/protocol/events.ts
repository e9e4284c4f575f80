/**
 * Pure. Every SSE event of a run stream, once: the server's event log publishes these shapes and
 * the browser parses each frame with the same schemas before use, since the stream is input too.
 *
 * The schemas accept the smaller frames sent when no run is live (an `end` without `run`, a
 * `chat-error` without `conversation`), and fill what a careless frame leaves out where the page
 * can still act on it (a `chat-error` without a code), so that one schema serves both sides.
 */
import { z } from './zod';
import { RunStatusSchema } from './run-status';
import { ElicitationActionSchema, PendingElicitationSchema } from './elicitation';

export const TraceNoteSchema = z.object({
	step: z.number(),
	name: z.string(),
	node: z.string(),
	event: z.enum(['enter', 'leave', 'call', 'result']),
	data: z.record(z.string(), z.unknown()).optional()
});
export type TraceNote = z.infer<typeof TraceNoteSchema>;

const optionalString = z.string().optional().catch(undefined);

/** Why a call waits for a person (approvals/approval-gate.ts). */
export const ApprovalReasonSchema = z.object({
	kind: z.enum(['policy', 'composed-url', 'uncertain']),
	message: z.string()
});
export type ApprovalReason = z.infer<typeof ApprovalReasonSchema>;

export const PendingApprovalSchema = z.object({
	toolCallId: z.string(),
	tool: z.string(),
	args: z.record(z.string(), z.unknown()),
	reason: ApprovalReasonSchema,
	requestedAt: z.string(),
	/** After this the call is denied as "not approved in time" (APPROVAL_TIMEOUT_MS). */
	expiresAt: z.string()
});
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

export const EVENT_DATA = {
	token: z.string(),
	reasoning: z.string(),
	trace: TraceNoteSchema,
	warning: z.object({
		code: z.string(),
		message: z.string(),
		servers: z.array(z.string()).catch([])
	}),
	/** The run pauses for these calls; `end` {status: "waiting"} follows. */
	approval: z.object({
		conversation: z.string(),
		run: z.string(),
		approvals: z.array(PendingApprovalSchema)
	}),
	/** A tool server asks the person during a call (elicitation); answered at POST /api/runs/<run>/elicitations/<id>. */
	elicitation: z.object({
		conversation: z.string(),
		run: z.string(),
		elicitation: PendingElicitationSchema
	}),
	/** The question is closed: answered (here or from another page), timed out (`cancel`), or its call ended (`ended`). */
	'elicitation-closed': z.object({
		conversation: z.string(),
		run: z.string(),
		id: z.string(),
		/** `ended`: its call ended first; `complete`: the server said the interaction it sent the person to has finished. */
		action: z.union([ElicitationActionSchema, z.literal('ended'), z.literal('complete')])
	}),
	end: z.object({
		conversation: z.string(),
		run: optionalString,
		/** `null` in the single-frame answer for a conversation that has never run. */
		status: RunStatusSchema.nullish().transform((s) => s ?? null),
		cause: optionalString
	}),
	'chat-error': z.object({
		code: z.string().catch('UNKNOWN_ERROR'),
		message: z.string().catch('Unknown error.'),
		conversation: optionalString,
		run: optionalString
	}),
	/** Keeps proxies from closing an idle stream; it carries nothing and no id. */
	ping: z.unknown().transform((): '' => '')
} as const;

export type StreamEventName = keyof typeof EVENT_DATA;
export const STREAM_EVENT_NAMES = Object.keys(EVENT_DATA) as StreamEventName[];

type DataOf<N extends StreamEventName> = z.output<(typeof EVENT_DATA)[N]>;

/** One event as the server forms it: its name and its data. */
export type WireEvent = { [N in StreamEventName]: { event: N; data: DataOf<N> } }[StreamEventName];

/** The events a run publishes to its log; `ping` is sent by each stream, outside the log. */
export type RunEvent = Exclude<WireEvent, { event: 'ping' }>;

/** One event as the browser receives it, with its SSE id (`null` for frames sent without one). */
export type StreamEvent = { [N in StreamEventName]: { event: N; id: number | null; data: DataOf<N> } }[StreamEventName];

/** The run's last event: after it the stream closes and the run's outcome is recorded. */
export function isTerminal<E extends { event: StreamEventName }>(e: E): e is E & { event: 'end' | 'chat-error' } {
	return e.event === 'end' || e.event === 'chat-error';
}

function parseId(lastEventId: string): number | null {
	if (!/^\d+$/.test(lastEventId)) return null;
	const n = Number(lastEventId);
	return Number.isSafeInteger(n) && n > 0 ? n : null;
}

const isEventName = (name: string): name is StreamEventName => Object.hasOwn(EVENT_DATA, name);

/**
 * Parses one SSE message; null for anything malformed. `lastEventId` is EventSource's
 * last-event-id buffer, which a frame without an `id:` line leaves unchanged: an id here may be an
 * earlier frame's, so callers never deduplicate terminal events.
 */
export function parseStreamEvent(event: string, data: string, lastEventId: string): StreamEvent | null {
	if (!isEventName(event)) return null;
	let payload: unknown;
	try {
		payload = JSON.parse(data);
	} catch {
		return null;
	}
	const parsed = EVENT_DATA[event].safeParse(payload);
	if (!parsed.success) return null;
	const id = event === 'ping' ? null : parseId(lastEventId);
	return { event, id, data: parsed.data } as StreamEvent;
}
