import { ApiError } from '../errors';

/** 1 MiB: far above any message (MAX_MESSAGE_CHARS) yet small enough to refuse before reading. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Cancelling would destroy the socket before the 413 is written, and leaving the rest unread would
 * stall the next request on a kept-alive connection; so the rest is read and dropped, never kept.
 * adapter-node's BODY_SIZE_LIMIT bounds how much that can be.
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
	try {
		while (!(await reader.read()).done);
	} catch {
		// The stream failed (over BODY_SIZE_LIMIT, or the client left): nothing more to drop.
	}
}

/**
 * Reads a JSON body, refusing one over `maxBytes` from its Content-Length or, when that is absent
 * or lies, while counting the stream, so an oversized body is never held whole.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
	const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', `Request body must be at most ${maxBytes} bytes`);
	const declared = Number(request.headers.get('content-length'));
	if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
	const chunks: Uint8Array[] = [];
	let size = 0;
	if (request.body) {
		const reader = request.body.getReader();
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			size += value.byteLength;
			if (size > maxBytes) {
				await discardRest(reader);
				throw tooLarge();
			}
			chunks.push(value);
		}
	}
	const text = Buffer.concat(chunks).toString('utf8');
	try {
		return JSON.parse(text);
	} catch {
		throw new ApiError('BAD_REQUEST', 'Request body must be JSON');
	}
}
