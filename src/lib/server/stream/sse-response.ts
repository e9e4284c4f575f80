import { isTerminal, type WireEvent } from '../../protocol';
import { SSE_HEADERS, SSE_RETRY, formatSseFrame } from './sse-frame';
import type { EventLog } from './event-log';

/** Comments would do, but the reference's clients listen for a `ping` event; it has no id. */
const PING_MS = 15_000;

const PING_FRAME = formatSseFrame('ping' satisfies WireEvent['event'], '');

const encoder = new TextEncoder();

/** A response holding one event and no id: the durable answer when no run is live, or a refusal. */
export function singleEventResponse(e: Exclude<WireEvent, { event: 'ping' }>, status = 200): Response {
	return new Response(SSE_RETRY + formatSseFrame(e.event, e.data), { status, headers: SSE_HEADERS });
}

/**
 * Replays the log after `lastEventId`, then follows it live until its terminal event. Each live
 * follower holds a socket, a ping timer and a copy of every frame, so past `maxFollowers`
 * (MAX_STREAMS_PER_RUN) the answer is a 429 holding one `chat-error` TOO_MANY_STREAMS, which an
 * EventSource does not reconnect to; a finished log replays to anyone.
 */
export function liveEventResponse(log: EventLog, lastEventId: number, signal: AbortSignal, maxFollowers: number): Response {
	if (!log.isEnded && log.followers >= maxFollowers) {
		const message = `${maxFollowers} streams already follow this run (MAX_STREAMS_PER_RUN): close one, or follow it later`;
		return singleEventResponse({ event: 'chat-error', data: { code: 'TOO_MANY_STREAMS', message } }, 429);
	}
	let cleanup = () => {};
	const body = new ReadableStream<Uint8Array>({
		start(controller) {
			let open = true;
			const send = (text: string) => open && controller.enqueue(encoder.encode(text));
			const { missed, detach } = log.follow(lastEventId, (frame, event) => {
				send(frame);
				if (isTerminal(event)) cleanup();
			});
			send(SSE_RETRY + missed.join(''));
			if (log.isEnded) {
				detach();
				controller.close();
				return;
			}
			const ping = setInterval(() => send(PING_FRAME), PING_MS);
			ping.unref();
			cleanup = () => {
				if (!open) return;
				open = false;
				clearInterval(ping);
				detach();
				signal.removeEventListener('abort', cleanup);
				try {
					controller.close();
				} catch {
					// Already closed by the client going away.
				}
			};
			signal.addEventListener('abort', cleanup);
		},
		cancel() {
			cleanup();
		}
	});
	return new Response(body, { headers: SSE_HEADERS });
}

export function parseLastEventId(header: string | null): number {
	const n = Number(header);
	return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
