/**
 * Pure. The shapes the browser receives, and the guard every SSE event passes before use.
 * The JSON bodies reuse the server's own types (type-only imports, erased from the bundle); the
 * stream events are widened where the server sends smaller frames (the no-live-run `end` has no
 * `run`, the single-frame `chat-error` may lack `conversation`), and a type check below fails the
 * build if a server event would not fit the client's union.
 */
import type { MessageDto, ToolCallDto } from '../server/agent/messages';
import type { TraceNote } from '../server/agent/agent-events';
import type { ConversationSummary, RunStatus } from '../server/db/conversation-store';
import type { RunRecord } from '../server/db/run-store';
import type { Readiness, Check } from '../server/readiness';
import type { RunEvent } from '../server/stream/run-events';

export type { MessageDto, ToolCallDto, TraceNote, ConversationSummary, RunStatus, RunRecord, Readiness, Check };

export type WireError = { code: string; message: string };

export type ConversationDetail = {
	conversation: ConversationSummary;
	messages: MessageDto[];
	resumable: boolean;
};

/** One event of a run stream, with its SSE id (`null` for frames sent without one). */
export type StreamEvent =
	| { event: 'token'; id: number | null; data: string }
	| { event: 'reasoning'; id: number | null; data: string }
	| { event: 'trace'; id: number | null; data: TraceNote }
	| { event: 'warning'; id: number | null; data: { code: string; message: string; servers: string[] } }
	| {
			event: 'end';
			id: number | null;
			data: { conversation: string; run?: string; status: RunStatus | null; cause?: string };
	  }
	| { event: 'chat-error'; id: number | null; data: { code: string; message: string; conversation?: string; run?: string } }
	| { event: 'ping'; id: null; data: '' };

export type StreamEventName = StreamEvent['event'];

export const STREAM_EVENT_NAMES: readonly StreamEventName[] = [
	'token',
	'reasoning',
	'trace',
	'warning',
	'end',
	'chat-error',
	'ping'
];

// Drift check: every event the server publishes must be one the client understands.
type ServerEventFits = RunEvent extends Omit<Exclude<StreamEvent, { event: 'ping' }>, 'id'> ? true : never;
const serverEventFits: ServerEventFits = true;
void serverEventFits;

export function isTerminal(e: StreamEvent): e is Extract<StreamEvent, { event: 'end' | 'chat-error' }> {
	return e.event === 'end' || e.event === 'chat-error';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const RUN_STATUSES = new Set<unknown>(['running', 'interrupted', 'completed', 'failed', 'cancelled', null]);
const TRACE_EVENTS = new Set<unknown>(['enter', 'leave', 'call', 'result']);

function parseId(lastEventId: string): number | null {
	if (!/^\d+$/.test(lastEventId)) return null;
	const n = Number(lastEventId);
	return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * Parses one SSE message; null for anything malformed, since the stream is input too.
 * `lastEventId` is EventSource's last-event-id buffer, which a frame without an `id:` line leaves
 * unchanged: an id here may be an earlier frame's, so callers never deduplicate terminal events.
 */
export function parseStreamEvent(event: string, data: string, lastEventId: string): StreamEvent | null {
	let payload: unknown;
	try {
		payload = JSON.parse(data);
	} catch {
		return null;
	}
	const id = parseId(lastEventId);
	switch (event) {
		case 'token':
		case 'reasoning':
			return isString(payload) ? { event, id, data: payload } : null;
		case 'ping':
			return { event: 'ping', id: null, data: '' };
		case 'trace':
			if (
				isRecord(payload) &&
				typeof payload.step === 'number' &&
				isString(payload.name) &&
				isString(payload.node) &&
				TRACE_EVENTS.has(payload.event) &&
				(payload.data === undefined || isRecord(payload.data))
			) {
				return { event, id, data: payload as TraceNote };
			}
			return null;
		case 'warning':
			if (isRecord(payload) && isString(payload.code) && isString(payload.message)) {
				const servers = Array.isArray(payload.servers) ? payload.servers.filter(isString) : [];
				return { event, id, data: { code: payload.code, message: payload.message, servers } };
			}
			return null;
		case 'end':
			if (isRecord(payload) && isString(payload.conversation) && RUN_STATUSES.has(payload.status ?? null)) {
				return {
					event,
					id,
					data: {
						conversation: payload.conversation,
						status: (payload.status ?? null) as RunStatus | null,
						...(isString(payload.run) ? { run: payload.run } : {}),
						...(isString(payload.cause) ? { cause: payload.cause } : {})
					}
				};
			}
			return null;
		case 'chat-error':
			if (isRecord(payload)) {
				return {
					event,
					id,
					data: {
						code: isString(payload.code) ? payload.code : 'UNKNOWN_ERROR',
						message: isString(payload.message) ? payload.message : 'Unknown error.',
						...(isString(payload.conversation) ? { conversation: payload.conversation } : {}),
						...(isString(payload.run) ? { run: payload.run } : {})
					}
				};
			}
			return null;
		default:
			return null;
	}
}
