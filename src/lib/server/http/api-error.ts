import { ApiError } from '../errors';
import { isDatabaseUnavailable } from '../storage/database-errors';
import { redactor } from '../secrets/redactor';

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers }
	});
}

/**
 * What a route answers for `e`: a refusal keeps its code; a database that cannot be reached is
 * DATABASE_UNAVAILABLE (503); anything else is logged whole and reaches the client as a plain
 * INTERNAL_ERROR.
 */
export function toApiError(e: unknown): ApiError {
	return e instanceof ApiError ? e : isDatabaseUnavailable(e) ? databaseUnavailable(e) : unexpected(e);
}

/**
 * The response for a route that failed with `e`. Given the `request` of a route that waits on the
 * client's connection (a join, a wait), an error after the client hung up is that hanging up, which
 * nobody reads and nothing logs (status 499, as proxies record a client that closed first).
 */
export function errorResponse(e: unknown, request?: Request): Response {
	if (request?.signal.aborted) return new Response(null, { status: 499 });
	const error = toApiError(e);
	// A refused upload may still be arriving: its connection cannot carry another request.
	const headers: Record<string, string> = error.code === 'PAYLOAD_TOO_LARGE' ? { Connection: 'close' } : {};
	return jsonResponse({ error: { code: error.code, message: redactor.redact(error.message) } }, error.status, headers);
}

function databaseUnavailable(e: unknown): ApiError {
	// One line, not a stack: during an outage every request fails the same way.
	console.error(redactor.redact(`Database unavailable: ${(e as Error).message}`));
	return new ApiError('DATABASE_UNAVAILABLE', 'The database cannot be reached: try again shortly', { cause: e });
}

function unexpected(e: unknown): ApiError {
	console.error('Unexpected error', redactor.describe(e));
	return new ApiError('INTERNAL_ERROR', 'Internal error');
}
