import { isTerminal, type WireEvent } from '../../protocol';
import { SSE_HEADERS, SSE_RETRY, formatSseFrame } from './sse-frame';
import type { EventLog } from './event-log';
import { SlowReaderError, SseWriter } from './sse-writer';

/** Comments would do, but the reference's clients listen for a `ping` event; it has no id. */
const PING_MS = 15_000;

const PING_FRAME = formatSseFrame('ping' satisfies WireEvent['event'], '');

/** A response holding one event and no id: the durable answer when no run is live. */
export function singleEventResponse(e: Exclude<WireEvent, { event: 'ping' }>): Response {
	return new Response(SSE_RETRY + formatSseFrame(e.event, e.data), { headers: SSE_HEADERS });
}

export type LiveResponseOptions = {
	/** Bytes of live events a reader may leave unread before it is dropped (SSE_READER_BACKLOG_BYTES). */
	backlogLimitBytes: number;
	/** Told when a reader is dropped for not reading; the reader may reconnect with Last-Event-ID. */
	onDrop: (error: SlowReaderError) => void;
};

/**
 * Replays the log after `lastEventId`, then follows it live until its terminal event. Live frames
 * are written once per turn of the event loop, and a reader that stops reading is dropped past
 * `backlogLimitBytes` (see SseWriter).
 */
export function liveEventResponse(log: EventLog, lastEventId: number, signal: AbortSignal, options: LiveResponseOptions): Response {
	let stop = () => {};
	const body = new ReadableStream<Uint8Array>(
		{
			start(controller) {
				let open = true;
				let ping: NodeJS.Timeout | undefined;
				const end = (how: 'close' | 'discard' | SlowReaderError) => {
					if (!open) return;
					open = false;
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

export function parseLastEventId(header: string | null): number {
	const n = Number(header);
	return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
