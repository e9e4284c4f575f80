import { isTerminal, type WireEvent } from '../../protocol';
import { SSE_HEADERS, SSE_RETRY, formatSseFrame } from './sse-frame';
import type { EventLog } from './event-log';

/** Comments would do, but the reference's clients listen for a `ping` event; it has no id. */
const PING_MS = 15_000;

const PING_FRAME = formatSseFrame('ping' satisfies WireEvent['event'], '');

const encoder = new TextEncoder();

/** A response holding one event and no id: the durable answer when no run is live. */
export function singleEventResponse(e: Exclude<WireEvent, { event: 'ping' }>): Response {
	return new Response(SSE_RETRY + formatSseFrame(e.event, e.data), { headers: SSE_HEADERS });
}

/** Replays the log after `lastEventId`, then follows it live until its terminal event. */
export function liveEventResponse(log: EventLog, lastEventId: number, signal: AbortSignal): Response {
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
