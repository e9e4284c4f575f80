// Pure. Whether the tool host answers a request at all, decided from its headers before any body is
// read: a Host it serves (DNS rebinding), no browser origin, and the bearer token.
import { isAllowedHost, type HostEntry } from '../../src/lib/server/http/host-allow-list';
import { presentedToken, tokenMatches } from '../../src/lib/server/http/token-check';

export type GateOptions = { allowedHosts: readonly HostEntry[]; token: string | undefined };

export type Refusal = { status: 401 | 403; message: string };

export function refusalOf(headers: { host?: string; origin?: string; authorization?: string }, options: GateOptions): Refusal | null {
	if (!isAllowedHost(headers.host ?? null, options.allowedHosts)) return { status: 403, message: 'Host not allowed' };
	// Its clients are Sophos instances, never pages: a request a browser sends for a page carries
	// Origin, and without CORS headers its answer is unreadable anyway; it is refused before it acts.
	if (headers.origin !== undefined) return { status: 403, message: 'Browser requests are not served' };
	if (options.token === undefined) return null;
	const presented = headers.authorization === undefined ? null : presentedToken(headers.authorization, undefined);
	if (presented === null || !tokenMatches(presented, options.token)) return { status: 401, message: 'A valid bearer token is required' };
	return null;
}
