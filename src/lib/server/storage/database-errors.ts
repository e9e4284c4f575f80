/**
 * Pure. The one place a database failure is judged "the database cannot be reached now"
 * (PostgreSQL stopped or restarting, the network to it gone, no connection slot free), so a route
 * can answer DATABASE_UNAVAILABLE instead of an internal error. Judged by codes only, never by
 * wording: `pg` hands on Node's socket errors with their errno code and the server's errors with
 * their SQLSTATE, pg-pool wraps its connect timeout around its cause, and our pool's client gives
 * a connect failure without a code its own type.
 */

/**
 * A connection that could not be opened for a reason pg gives no code for: its connect timeout (a
 * server that accepts and never answers, a network that drops packets), a socket closed before the
 * server answered. Thrown by postgres/client.ts, pure data here.
 */
export class DatabaseConnectError extends Error {
	override name = 'DatabaseConnectError';
}

/** Node's socket errors on connect, read or write. */
const SOCKET_ERRNO_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ECONNABORTED',
	'EPIPE',
	'ETIMEDOUT',
	'EHOSTUNREACH',
	'EHOSTDOWN',
	'ENETUNREACH',
	'ENETDOWN',
	// The server's name does not resolve (now): a DNS outage as much as a typo, so not a refusal of the setting.
	'ENOTFOUND',
	'EAI_AGAIN'
]);

/**
 * SQLSTATEs of a server going away or not there yet: 57P01 admin_shutdown (a fast shutdown ends
 * every session with it), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting
 * down, in recovery), 53300 too_many_connections. Class 08 (connection exceptions) is matched whole.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

const CONNECTION_EXCEPTION_CLASS = '08';

function codeOf(error: object): string | undefined {
	const code = (error as { code?: unknown }).code;
	return typeof code === 'string' ? code : undefined;
}

function hasUnavailableCode(error: object): boolean {
	const code = codeOf(error);
	if (code === undefined) return false;
	return SOCKET_ERRNO_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || (code.length === 5 && code.startsWith(CONNECTION_EXCEPTION_CLASS));
}

/**
 * Whether `error`, its `cause` chain or (for an AggregateError, what Node gives when every address
 * of a host refused) one of its `errors` says the database cannot be reached now. A refusal that a
 * retry will not mend (bad credentials 28P01/28000, a missing database 3D000) is not unavailability.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
	const seen = new Set<object>();
	const visit = (e: unknown): boolean => {
		if (typeof e !== 'object' || e === null || seen.has(e)) return false;
		seen.add(e);
		if (e instanceof DatabaseConnectError || hasUnavailableCode(e)) return true;
		if (e instanceof AggregateError && e.errors.some(visit)) return true;
		return visit((e as { cause?: unknown }).cause);
	};
	return visit(error);
}
