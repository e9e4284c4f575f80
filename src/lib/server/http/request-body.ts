import { ApiError } from '../errors';

/** 1 MiB: far above any message (MAX_MESSAGE_CHARS) yet small enough to refuse before reading. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON body, refusing one over `maxBytes` from its Content-Length or, when that is absent
 * or lies, while counting the stream, so an oversized body is never held whole. The 413 goes out as
 * soon as the cap is passed (issue 21: the rest used to be read and dropped first, so a chunked
 * body that never ended never got its answer): the rest is left unread, neither cancelled (that
 * would destroy the socket before the 413 is written) nor drained, and the hook closes the
 * connection after a 413 (src/hooks.server.ts), so no next request waits behind it.
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
				reader.releaseLock();
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
