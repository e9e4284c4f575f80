import { isTerminal, type WireEvent } from '../../protocol';
import { SSE_HEADERS, SSE_RETRY, formatSseFrame } from './sse-frame';
import type { EventLog } from './event-log';
import { SlowReaderError, SseWriter } from './sse-writer';

/** Comments would do, but the reference's clients listen for a `ping` event; it has no id. */
const PING_MS = 15_000;

const PING_FRAME = formatSseFrame('ping' satisfies WireEvent['event'], '');

/** A response holding one event and no id: the durable answer when no run is live, or a refusal. */
export function singleEventResponse(e: Exclude<WireEvent, { event: 'ping' }>, status = 200): Response {
	return new Response(SSE_RETRY + formatSseFrame(e.event, e.data), { status, headers: SSE_HEADERS });
}

export type LiveResponseOptions = {
	/**
	 * Live followers a run may have (MAX_STREAMS_PER_RUN): each holds a socket, a ping timer and a
	 * copy of every frame. One more gets a 429 holding one `chat-error` TOO_MANY_STREAMS, which an
	 * EventSource does not reconnect to; a finished log replays to anyone.
	 */
	maxFollowers: number;
	/** Bytes of live events a reader may leave unread before it is dropped (SSE_READER_BACKLOG_BYTES). */
	backlogLimitBytes: number;
	/** Told when a reader is dropped for not reading; the reader may reconnect with Last-Event-ID. */
	onDrop: (error: SlowReaderError) => void;
	/** Told as a live response starts following; what it returns, once as it ends (sophos_sse_streams). */
	opened?: () => () => void;
};

/** What a live response reads: a run's EventLog, or its events as kept in PostgreSQL (postgres/events/). */
export type FollowableLog = Pick<EventLog, 'isEnded' | 'followers' | 'follow'>;

/**
 * Replays the log after `lastEventId`, then follows it live until its terminal event. Live frames
 * are written once per turn of the event loop, and a reader that stops reading is dropped past
 * `backlogLimitBytes` (see SseWriter).
 */
export function liveEventResponse(log: FollowableLog, lastEventId: number, signal: AbortSignal, options: LiveResponseOptions): Response {
	if (!log.isEnded && log.followers >= options.maxFollowers) {
		const message = `${options.maxFollowers} streams already follow this run (MAX_STREAMS_PER_RUN): close one, or follow it later`;
		return singleEventResponse({ event: 'chat-error', data: { code: 'TOO_MANY_STREAMS', message } }, 429);
	}
	let stop = () => {};
	const body = new ReadableStream<Uint8Array>(
		{
			start(controller) {
				let open = true;
				let ping: NodeJS.Timeout | undefined;
				const closed = options.opened?.();
				const end = (how: 'close' | 'discard' | SlowReaderError) => {
					if (!open) return;
					open = false;
					closed?.();
					clearInterval(ping);
					detach();
					signal.removeEventListener('abort', stop);
					if (how === 'close') writer.close();
					else if (how === 'discard') writer.discard();
					else options.onDrop(how);
				};
				const writer = new SseWriter(controller, options.backlogLimitBytes, end);
				const { missed, detach } = log.follow(lastEventId, (frame, event) => {
					writer.write(frame);
					if (isTerminal(event)) end('close');
				});
				writer.writeReplay(SSE_RETRY + missed.join(''));
				if (log.isEnded) return end('close');
				ping = setInterval(() => writer.write(PING_FRAME), PING_MS);
				ping.unref();
				stop = () => end('discard');
				signal.addEventListener('abort', stop);
			},
			cancel() {
				stop();
			}
		},
		SseWriter.queuingStrategy(options.backlogLimitBytes)
	);
	return new Response(body, { headers: SSE_HEADERS });
}

/**
 * The event id a reconnecting reader last saw; 0 (replay all) for anything but decimal digits.
 * Number() would read `0x10` as 16, `1e3` as 1000 and ` 7 ` as 7 (issue 21): ids we send are
 * decimal, so nothing else is one of ours.
 */
export function parseLastEventId(header: string | null): number {
	if (header === null || !/^[0-9]{1,16}$/.test(header)) return 0;
	const n = Number(header);
	return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
