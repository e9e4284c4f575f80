/**
 * Pure. What one run's event stream has said so far: the partial transcript (assistant segments
 * with their text, thinking and tool calls; tool results), the timeline and the outcome.
 * Events are applied by id: an id at or below the last one applied is a replayed duplicate and is
 * skipped, so a stream that is replayed and then followed live adds each piece of text exactly once.
 * Every update returns a new object; nothing is mutated.
 */
import { isTerminal, ReusedFromSchema, type ReusedFrom, type StreamEvent, type TraceNote } from '../protocol';

export type LiveToolCall = { id: string; name: string; args: unknown };

export type LiveItem =
	| { kind: 'assistant'; key: string; step: number; reasoning: string; text: string; toolCalls: LiveToolCall[] }
	| {
			kind: 'tool';
			key: string;
			step: number;
			toolCallId: string;
			name: string;
			status: 'success' | 'error';
			content: string;
			/** The trace says the result came from the same call on another branch. */
			reusedFrom?: ReusedFrom;
	  };

export type TimelineEntry = {
	key: string;
	step: number;
	node: string;
	name: string;
	event: TraceNote['event'];
	status?: 'success' | 'error';
};

export type RunOutcome =
	| { kind: 'end'; status: string | null; run?: string; cause?: string }
	| { kind: 'error'; code: string; message: string; run?: string };

export type LiveRun = {
	/** Highest event id applied; 0 before any. */
	lastEventId: number;
	items: LiveItem[];
	/** Whether the last assistant segment still takes text (false after a node boundary or a tool call). */
	segmentOpen: boolean;
	timeline: TimelineEntry[];
	warnings: { code: string; message: string; servers: string[] }[];
	/** True once the run produced anything a reader sees (thinking, text or a tool call). */
	hasOutput: boolean;
	outcome: RunOutcome | null;
};

export function emptyLiveRun(): LiveRun {
	return { lastEventId: 0, items: [], segmentOpen: false, timeline: [], warnings: [], hasOutput: false, outcome: null };
}

/** The run without its transcript part, once the durable transcript has replaced it. */
export function settledLiveRun(run: LiveRun): LiveRun {
	return { ...run, items: [], segmentOpen: false };
}

type AssistantItem = Extract<LiveItem, { kind: 'assistant' }>;

function withSegment(run: LiveRun, key: string, step: number, change: (s: AssistantItem) => AssistantItem): LiveRun {
	const last = run.items.at(-1);
	if (run.segmentOpen && last?.kind === 'assistant') {
		return { ...run, items: [...run.items.slice(0, -1), change(last)], hasOutput: true };
	}
	const fresh: AssistantItem = { kind: 'assistant', key, step, reasoning: '', text: '', toolCalls: [] };
	return { ...run, items: [...run.items, change(fresh)], segmentOpen: true, hasOutput: true };
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

function applyTrace(run: LiveRun, note: TraceNote, key: string): LiveRun {
	const data = note.data ?? {};
	const status = data.status === 'error' ? 'error' : data.status === 'success' ? 'success' : undefined;
	const entry: TimelineEntry = {
		key,
		step: note.step,
		node: note.node,
		name: note.name,
		event: note.event,
		...(note.event === 'result' && status ? { status } : {})
	};
	const next = { ...run, timeline: [...run.timeline, entry] };
	switch (note.event) {
		case 'enter':
		case 'leave':
			return { ...next, segmentOpen: false };
		case 'call': {
			const call: LiveToolCall = { id: str(data.tool_call_id, key), name: str(data.name, note.name), args: data.arguments ?? {} };
			// Calls come after their message's text, all before the node's `leave`.
			return withSegment(next, key, note.step, (s) => ({ ...s, toolCalls: [...s.toolCalls, call] }));
		}
		case 'result':
			return {
				...next,
				segmentOpen: false,
				hasOutput: true,
				items: [
					...next.items,
					{
						kind: 'tool',
						key,
						step: note.step,
						toolCallId: str(data.tool_call_id),
						name: str(data.name, note.name),
						status: status ?? 'success',
						content: str(data.result),
						...reusedFromOf(data)
					}
				]
			};
	}
}

function reusedFromOf(data: Record<string, unknown>): { reusedFrom?: ReusedFrom } {
	const parsed = ReusedFromSchema.safeParse(data.reusedFrom);
	return parsed.success ? { reusedFrom: parsed.data } : {};
}

function lastStep(run: LiveRun): number {
	return run.timeline.at(-1)?.step ?? -1;
}

/** Applies one event. Returns the same object when the event changes nothing (ping, duplicate). */
export function applyRunEvent(run: LiveRun, e: StreamEvent): LiveRun {
	if (e.event === 'ping') return run;
	if (isTerminal(e)) {
		// Never deduplicated: the no-live-run `end` has no id of its own (see parseStreamEvent).
		if (run.outcome) return run;
		const outcome: RunOutcome =
			e.event === 'end'
				? { kind: 'end', status: e.data.status, ...(e.data.run ? { run: e.data.run } : {}), ...(e.data.cause ? { cause: e.data.cause } : {}) }
				: { kind: 'error', code: e.data.code, message: e.data.message, ...(e.data.run ? { run: e.data.run } : {}) };
		return { ...run, outcome, segmentOpen: false, lastEventId: Math.max(run.lastEventId, e.id ?? 0) };
	}
	if (e.id !== null && e.id <= run.lastEventId) return run;
	const advanced = { ...run, lastEventId: e.id ?? run.lastEventId };
	const key = `live-${e.id ?? `${run.lastEventId}.${run.timeline.length}.${run.items.length}`}`;
	switch (e.event) {
		case 'token':
			return withSegment(advanced, key, lastStep(run), (s) => ({ ...s, text: s.text + e.data }));
		case 'reasoning':
			return withSegment(advanced, key, lastStep(run), (s) => ({ ...s, reasoning: s.reasoning + e.data }));
		case 'trace':
			return applyTrace(advanced, e.data, key);
		case 'warning':
			return { ...advanced, warnings: [...advanced.warnings, e.data] };
		case 'approval':
		case 'elicitation':
		case 'elicitation-closed':
			// The calls and questions are the conversation's, kept beside the run (run-follower.ts).
			return advanced;
	}
}
