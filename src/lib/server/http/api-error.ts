import { ApiError } from '../errors';

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers }
	});
}

/** A refusal keeps its code; anything else is logged whole and reaches the client as a plain 500. */
export function errorResponse(e: unknown): Response {
	const error = e instanceof ApiError ? e : new ApiError('INTERNAL_ERROR', 'Internal error');
	if (!(e instanceof ApiError)) console.error('Unexpected error', e);
	// A refused upload may still be arriving: its connection cannot carry another request.
	const headers: Record<string, string> = error.code === 'PAYLOAD_TOO_LARGE' ? { Connection: 'close' } : {};
	return jsonResponse({ error: { code: error.code, message: error.message } }, error.status, headers);
}
