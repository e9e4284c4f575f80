/**
 * Opens a conversation's run stream. The controller depends on the `OpenRunStream` type only, so
 * tests hand it a scripted stream; `eventSourceRunStream` is the browser's EventSource behind it.
 *
 * EventSource reconnects by itself after a network error (sending Last-Event-ID), which is how a
 * page rides out a server restart; it gives up only on a bad response, reported as `onFailed`.
 * The caller must `close()` on a terminal event, or the browser would reconnect to a finished run.
 */
import { STREAM_EVENT_NAMES, parseStreamEvent, type StreamEvent } from '../protocol';

export type RunStreamHandlers = {
	onEvent(event: StreamEvent): void;
	/** The connection is (again) open. */
	onOpen(): void;
	/** The connection dropped; the browser is trying again. */
	onReconnecting(): void;
	/** The browser gave up (a non-SSE or non-200 answer). */
	onFailed(): void;
};

export type RunStreamHandle = { close(): void };

/** `runId`: the run the page just started, replayed whole even if it ended before the stream opened. */
export type OpenRunStream = (conversationId: string, handlers: RunStreamHandlers, runId?: string) => RunStreamHandle;

export const eventSourceRunStream: OpenRunStream = (conversationId, handlers, runId) => {
	const query = new URLSearchParams({ conversation: conversationId, ...(runId ? { run: runId } : {}) });
	const source = new EventSource(`/api/chat?${query}`);
	let closed = false;
	const listeners = STREAM_EVENT_NAMES.map((name) => {
		const listener = (e: Event) => {
			if (closed) return;
			const m = e as MessageEvent<string>;
			const event = parseStreamEvent(name, m.data, m.lastEventId);
			if (event) handlers.onEvent(event);
		};
		source.addEventListener(name, listener);
		return [name, listener] as const;
	});
	source.onopen = () => !closed && handlers.onOpen();
	source.onerror = () => {
		if (closed) return;
		if (source.readyState === EventSource.CLOSED) handlers.onFailed();
		else handlers.onReconnecting();
	};
	return {
		close() {
			if (closed) return;
			closed = true;
			for (const [name, listener] of listeners) source.removeEventListener(name, listener);
			source.close();
		}
	};
};
