import { SophosError, isSophosError } from '../errors';

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers }
	});
}

/** Our errors keep their code; anything else is logged whole and reaches the client as a plain 500. */
export function errorResponse(e: unknown): Response {
	const error = isSophosError(e) ? e : new SophosError('INTERNAL_ERROR', 'Internal error');
	if (!isSophosError(e)) console.error('Unexpected error', e);
	return jsonResponse({ error: { code: error.code, message: error.message } }, error.status);
}
