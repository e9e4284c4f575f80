/** The one place SSE bytes are formed. */

export const SSE_HEADERS = {
	'Content-Type': 'text/event-stream; charset=utf-8',
	'Cache-Control': 'no-cache, no-transform',
	Connection: 'keep-alive',
	'X-Accel-Buffering': 'no'
} as const;

const NAME = /^[a-z][a-z-]*$/;

/**
 * One frame: optional `id:`, `event:`, one `data:` line holding JSON, and a blank line. JSON never
 * contains a raw newline, so the payload cannot break framing; the name and id are checked instead.
 */
export function formatSseFrame(event: string, data: unknown, id?: number): string {
	if (!NAME.test(event)) throw new Error(`Invalid SSE event name: ${JSON.stringify(event)}`);
	if (id !== undefined && !Number.isSafeInteger(id)) throw new Error(`Invalid SSE id: ${id}`);
	const idLine = id === undefined ? '' : `id: ${id}\n`;
	return `${idLine}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Sent once at the start of a stream so a reconnecting EventSource waits 1 s, not the browser default. */
export const SSE_RETRY = 'retry: 1000\n\n';
