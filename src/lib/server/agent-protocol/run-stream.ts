/**
 * A run's stream in the LangGraph Agent Server protocol, read from Sophos's own stream of the run
 * (runs/live-runs.ts `follow`), so it is resumable, bounded and followed across instances exactly
 * as that one is: `metadata {run_id, attempt}` first, then the modes asked for, `error {error,
 * message}` on a failure, and the response ends with the run (no `end` event). Heartbeats are SSE
 * comments.
 *
 * Ids: the frames made from one of Sophos's events carry that event's id on the last of them, so a
 * client's Last-Event-ID is one of Sophos's and a reconnect resumes after the whole group. A
 * reconnect reads Sophos's stream from its first event, to know which answer its tokens belong to,
 * and sends only what comes after the id it was given.
 */
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';
import { EVENT_DATA, type RunEvent } from '../../protocol';
import { SSE_HEADERS, formatSseFrame } from '../stream/sse-frame';
import type { MessageDict, ThreadValues } from './protocol-dtos';
import type { StreamMode } from './run-create';

export type RunStreamContext = {
	threadId: string;
	/** The protocol run's id (its first Sophos run). */
	runId: string;
	attempt: number;
	modes: readonly StreamMode[];
	/** The id the client last saw; 0 for everything (the protocol's `-1`, or no header). */
	after: number;
	/** The thread's values now: read at each step's end, and once more when the run pauses for approval. */
	values: () => Promise<ThreadValues>;
};

const HEARTBEAT = ': heartbeat\n\n';

const encoder = new TextEncoder();

type Frame = { event: string; data: unknown };

/** A chunk of the answer in progress, with the id the thread will give the whole message. */
function chunkOf(messageId: string, content: string, reasoning: string | null) {
	return {
		type: 'AIMessageChunk',
		id: messageId,
		content,
		additional_kwargs: reasoning === null ? {} : { reasoning_content: reasoning },
		response_metadata: {},
		tool_call_chunks: []
	};
}

/**
 * Turns Sophos's events of one run into protocol frames, in order (each may wait for a read of the
 * thread). What is up to `after` only informs: the answer in progress, and what `values` has shown.
 */
export class RunStreamTranslator {
	private answer: { id: string; step: number; node: string } | null = null;
	/** The step in progress: its node, and for an agent step its answer's id. */
	private step: { node: string; messageId: string | null } | null = null;
	/** Ids of the messages the client has been shown in `values` or `updates`. */
	private shown = new Set<string>();
	/** The ids of the calls the latest agent step made: its tools step's results, whatever a read showed before the step ended. */
	private readonly calls = new Set<string>();
	private previousId = 0;
	private ended = false;

	constructor(private readonly context: RunStreamContext) {}

	get isEnded(): boolean {
		return this.ended;
	}

	metadata(): string {
		return formatSseFrame('metadata', { run_id: this.context.runId, attempt: this.context.attempt });
	}

	private wants(mode: StreamMode): boolean {
		return this.context.modes.includes(mode);
	}

	private meta(node: string, step: number) {
		return { langgraph_node: node, langgraph_step: step, run_id: this.context.runId, thread_id: this.context.threadId };
	}

	/** The frames for one of Sophos's events, `id` on the last; none for what the client already has. */
	async translate(event: RunEvent, id: number | null): Promise<string> {
		const replayed = id !== null && id <= this.context.after;
		// A replayed stretch of merged text that began at or before `after` holds text the client has.
		// (A step's `enter` always comes before its text, so a stretch never opens the log: previousId is set.)
		const straddles = id !== null && this.previousId > 0 && this.previousId < this.context.after && id > this.context.after && id - this.previousId > 1;
		if (id !== null) this.previousId = id;
		const frames = replayed ? (this.note(event), []) : await this.framesOf(event, straddles);
		if (frames.length === 0) return '';
		return frames.map((f, i) => formatSseFrame(f.event, f.data, i === frames.length - 1 && id !== null ? id : undefined)).join('');
	}

	/** Keeps the state a later event needs without sending anything. */
	private note(event: RunEvent): void {
		if (event.event !== 'trace') return;
		if (event.data.event === 'enter' && event.data.node === 'agent') this.calls.clear();
		const callId = event.data.data?.tool_call_id;
		if (event.data.event === 'call' && typeof callId === 'string') this.calls.add(callId);
		if (event.data.event === 'enter') {
			const messageId = event.data.data?.messageId;
			this.answer = typeof messageId === 'string' ? { id: messageId, step: event.data.step, node: event.data.node } : null;
			this.step = { node: event.data.node, messageId: typeof messageId === 'string' ? messageId : null };
		}
	}

	private async framesOf(event: RunEvent, straddles: boolean): Promise<Frame[]> {
		switch (event.event) {
			case 'token':
			case 'reasoning': {
				if (!this.answer || straddles || !this.wants('messages-tuple')) return [];
				const chunk = event.event === 'token' ? chunkOf(this.answer.id, event.data, null) : chunkOf(this.answer.id, '', event.data);
				return [{ event: 'messages', data: [chunk, this.meta(this.answer.node, this.answer.step)] }];
			}
			case 'trace': {
				this.note(event);
				if (event.data.event !== 'leave') return [];
				return this.stepEnded();
			}
			case 'warning':
				return this.wants('custom') ? [{ event: 'custom', data: { type: 'warning', code: event.data.code, message: event.data.message } }] : [];
			case 'elicitation':
			case 'elicitation-closed':
				// A tool server's question, answered at Sophos's own route: told to custom-mode readers.
				return this.wants('custom') ? [{ event: 'custom', data: { type: event.event, ...event.data } }] : [];
			case 'approval': {
				const values = await this.context.values();
				const frames: Frame[] = [];
				if (this.wants('updates') && values.__interrupt__) frames.push({ event: 'updates', data: { __interrupt__: values.__interrupt__ } });
				if (this.wants('values')) frames.push({ event: 'values', data: values });
				return frames;
			}
			case 'end':
				this.ended = true;
				return [];
			case 'chat-error':
				this.ended = true;
				return [{ event: 'error', data: { error: event.data.code, message: event.data.message } }];
		}
	}

	/**
	 * A step's end: what it wrote (`updates`) and the whole state (`values`), read once for both.
	 * The read may find a later step done too (the run goes on meanwhile), so a step's update holds
	 * only its own kind of message: an agent step its answer, a tools step its results.
	 */
	private async stepEnded(): Promise<Frame[]> {
		const step = this.step;
		this.answer = null;
		this.step = null;
		if (!step || (!this.wants('values') && !this.wants('updates'))) return [];
		const values = await this.context.values();
		// An agent step's answer, a tools step's results of the calls its agent step made: its update even
		// if a read showed them first (the one as the client began to follow, or a step's end read that
		// found the next step stored too). A tools step whose calls this stream was not told of (a
		// decided run's) adds the results not shown yet.
		const ofStep = (m: MessageDict) =>
			step.messageId !== null ? m.id === step.messageId : m.type === 'tool' && (this.calls.has(m.tool_call_id) || !this.shown.has(m.id));
		const added = values.messages.filter(ofStep);
		for (const m of added) this.shown.add(m.id);
		const frames: Frame[] = [];
		if (this.wants('updates') && added.length) frames.push({ event: 'updates', data: { [step.node]: { messages: added } } });
		if (this.wants('values')) frames.push({ event: 'values', data: values });
		return frames;
	}

	/** The messages the thread held as the client began to follow: `updates` names what steps add to them. */
	knowFrom(values: ThreadValues): void {
		for (const m of values.messages) this.shown.add(m.id);
	}
}

/** One of Sophos's frames as its event, or null for a frame that is not one of a run's (a ping, a bad frame). */
function runEventOf(message: EventSourceMessage): RunEvent | null {
	const name = message.event;
	if (!name || name === 'ping' || !Object.hasOwn(EVENT_DATA, name)) return null;
	let payload: unknown;
	try {
		payload = JSON.parse(message.data);
	} catch {
		return null;
	}
	const parsed = EVENT_DATA[name as keyof typeof EVENT_DATA].safeParse(payload);
	return parsed.success ? ({ event: name, data: parsed.data } as RunEvent) : null;
}

const idOf = (message: EventSourceMessage): number | null => (message.id && /^\d+$/.test(message.id) ? Number(message.id) : null);

/**
 * The protocol's stream of a run, from Sophos's stream of it (`sophos`, an SSE response). The
 * TransformStream keeps backpressure: a client that stops reading stops the reads of Sophos's
 * stream, whose own bound on a reader's backlog then applies.
 *
 * `left` is told, synchronously, when the client goes before the stream's end. The body's cancel is
 * how it learns that: adapter-node cancels the body once the response's socket closes, whereas the
 * request's signal never fires for a POST whose body was read (it only reports a request cut short
 * while its body was arriving), and a cancel's way up through the pipes is asynchronous.
 */
export function protocolStreamResponse(
	sophos: Response,
	translator: RunStreamTranslator,
	headers: Record<string, string>,
	left: () => void = () => {}
): Response {
	const translate = new TransformStream<EventSourceMessage, Uint8Array>({
		start(controller) {
			controller.enqueue(encoder.encode(translator.metadata()));
		},
		async transform(message, controller) {
			if (translator.isEnded) return;
			if (message.event === 'ping') return controller.enqueue(encoder.encode(HEARTBEAT));
			const event = runEventOf(message);
			if (!event) return;
			const text = await translator.translate(event, idOf(message));
			if (text) controller.enqueue(encoder.encode(text));
			if (translator.isEnded) controller.terminate();
		}
	});
	const frames = sophos
		.body!.pipeThrough(new TextDecoderStream())
		.pipeThrough(new EventSourceParserStream())
		.pipeThrough(translate)
		.getReader();
	const body = new ReadableStream<Uint8Array>(
		{
			async pull(controller) {
				const { done, value } = await frames.read();
				if (done) controller.close();
				else controller.enqueue(value);
			},
			cancel(reason) {
				left();
				return frames.cancel(reason);
			}
		},
		// Nothing read ahead of the client: the pipes above hold what it has not read yet.
		{ highWaterMark: 0 }
	);
	return new Response(body, { headers: { ...SSE_HEADERS, ...headers } });
}

/** A protocol stream with nothing of a run to follow: `metadata`, then `frames`, then the end. */
export function settledStreamResponse(translator: RunStreamTranslator, frames: Frame[], headers: Record<string, string>): Response {
	const text = translator.metadata() + frames.map((f) => formatSseFrame(f.event, f.data)).join('');
	return new Response(text, { headers: { ...SSE_HEADERS, ...headers } });
}

export type { Frame as ProtocolFrame };
