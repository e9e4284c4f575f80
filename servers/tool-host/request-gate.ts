// Pure. Whether the tool host answers a request at all, decided from its headers before any body is
// read: a Host it serves (DNS rebinding), no browser origin, and the bearer token.
import { hostHeaderCount, isAllowedHost, type HostEntry } from '../../src/lib/server/http/host-allow-list';
import { presentedToken, tokenMatches } from '../../src/lib/server/http/token-check';

export type GateOptions = { allowedHosts: readonly HostEntry[]; token: string | undefined };

export type Refusal = { status: 401 | 403; message: string };

/** `rawHeaders` as Node lists them: a second Host header shows only there (host-allow-list.ts). */
export function refusalOf(
	headers: { host?: string; origin?: string; authorization?: string },
	rawHeaders: readonly string[],
	options: GateOptions
): Refusal | null {
	if (hostHeaderCount(rawHeaders) > 1) return { status: 403, message: 'More than one Host header' };
	if (!isAllowedHost(headers.host ?? null, options.allowedHosts)) return { status: 403, message: 'Host not allowed' };
	// Its clients are Sophos instances, never pages: a request a browser sends for a page carries
	// Origin, and without CORS headers its answer is unreadable anyway; it is refused before it acts.
	if (headers.origin !== undefined) return { status: 403, message: 'Browser requests are not served' };
	if (options.token === undefined) return null;
	const presented = headers.authorization === undefined ? null : presentedToken(headers.authorization);
	if (presented === null || !tokenMatches(presented, options.token)) return { status: 401, message: 'A valid bearer token is required' };
	return null;
}
