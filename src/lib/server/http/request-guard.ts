/**
 * The front door, asked before any route runs (src/hooks.server.ts): one Host, one Sophos answers
 * to; a request other than for the page itself must come from its own page or an allowed origin
 * (reads too, since issue 21); and with SOPHOS_TOKEN set everything but the page shell, liveness
 * and sign-in needs the token or a live session. Knows nothing of SvelteKit: the hook hands it the
 * facts of the request.
 */
import { API_ERROR_STATUS, type ApiErrorCode } from '../../protocol';
import { jsonResponse } from './api-error';
import type { AuthThrottle } from './auth-throttle';
import { isAllowedHost, type HostEntry } from './host-allow-list';
import { isPreflight } from './cors';
import { OAUTH_CALLBACK_PATH } from './oauth-callback-url';
import { originRefusal } from './origin-check';
import { clearedSessionCookies, sessionCookie } from './session-cookie';
import { SESSION_TTL_MS, type SessionKeeper } from './session-keeper';
import { presentedToken, tokenMatches } from './token-check';

export type RequestFacts = {
	method: string;
	/** The path as it arrived, not decoded: it is matched exactly, so no other spelling passes. */
	pathname: string;
	/** The first Host header as sent, null when absent. */
	host: string | null;
	/** How many Host headers were sent; more than one is refused. */
	hostHeaders: number;
	origin: string | null;
	fetchSite: string | null;
	authorization: string | null;
	/** The x-api-key header, which LangGraph's SDK sends the token in; null when absent. */
	apiKey?: string | null;
	/** Access-Control-Request-Method: set on a CORS preflight. */
	requestMethod?: string | null;
	/** Every value of the session cookie, in the order sent (session-cookie.ts). */
	sessionIds: readonly string[];
	/** Asked only when a token is checked: with ADDRESS_HEADER set it can throw. */
	clientAddress: () => string;
};

export type Refusal = { code: ApiErrorCode; message: string; headers: Record<string, string>; setCookies?: string[] };

export type GuardOptions = {
	allowedHosts: readonly HostEntry[];
	allowedOrigins: readonly string[];
	/** SOPHOS_TOKEN; undefined: no token is asked for. */
	token: string | undefined;
	throttle: AuthThrottle;
	/** Set exactly when `token` is. */
	sessions: SessionKeeper | undefined;
};

/**
 * Deny by default (issue 21: `/%61pi/conversations` was routed to the API yet passed a guard that
 * looked for "/api/"). Only these paths, spelled exactly so, need no token: the page shell (its
 * static assets are served before any hook runs), liveness so a supervisor can probe it (Sophos's
 * own and the LangGraph protocol's /ok), and the session route, which takes the token itself.
 */
const OPEN_PATHS = new Set(['/', '/api/healthz', '/api/session', '/ok']);

/** The page itself may be opened from a link on any site; everything else answers its own page only. */
const PAGE_SHELL = '/';

const CHALLENGE = 'Bearer realm="sophos"';


const refusal = (code: ApiErrorCode, message: string, headers: Record<string, string> = {}): Refusal => ({
	code,
	message,
	headers
});

export function refusalResponse(r: Refusal): Response {
	const response = jsonResponse({ error: { code: r.code, message: r.message } }, API_ERROR_STATUS[r.code], r.headers);
	for (const c of r.setCookies ?? []) response.headers.append('Set-Cookie', c);
	return response;
}

export class RequestGuard {
	constructor(private readonly options: GuardOptions) {}

	/** Null when the request may reach its route. */
	async check(req: RequestFacts): Promise<Refusal | null> {
		if (req.hostHeaders > 1) {
			// Which of two a proxy, a framework or a logger reads is anyone's guess: neither is trusted.
			return refusal('HOST_NOT_ALLOWED', 'More than one Host header was sent: send one');
		}
		if (!isAllowedHost(req.host, this.options.allowedHosts)) {
			return refusal(
				'HOST_NOT_ALLOWED',
				`Host ${JSON.stringify(req.host ?? '')} is not served: Sophos answers loopback names and ALLOWED_HOSTS only`
			);
		}
		// The OAuth callback is the authorization server's redirect: a cross-site navigation that carries
		// no SameSite=Strict cookie. Its one-time `state`, begun by a signed-in person, is what admits it.
		if (OAUTH_CALLBACK_PATH.test(req.pathname) && req.method === 'GET') return null;
		const origin = originRefusal({ ...req, allowed: this.options.allowedOrigins, reads: req.pathname !== PAGE_SHELL });
		if (origin) return refusal('ORIGIN_NOT_ALLOWED', origin);
		const { token, sessions } = this.options;
		if (OPEN_PATHS.has(req.pathname) || token === undefined || sessions === undefined) return null;
		// A preflight never carries credentials; it is answered with the CORS headers alone (cors.ts).
		if (isPreflight({ ...req, requestMethod: req.requestMethod ?? null }, this.options.allowedOrigins)) return null;
		if (req.authorization !== null) return this.checkToken(token, presentedToken(req.authorization), req);
		if (req.apiKey !== undefined && req.apiKey !== null) return this.checkToken(token, req.apiKey, req);
		// A session id is 256 random bits, beyond guessing, so a wrong one is not counted against the
		// address: a cookie planted by a page on another port cannot lock the person out, and one that
		// stands beside the person's own is passed over.
		if (await sessions.isLive(req.sessionIds)) return null;
		if (req.sessionIds.length > 0) {
			return { ...refusal('UNAUTHORIZED', 'The session has ended: sign in again', { 'WWW-Authenticate': CHALLENGE }), setCookies: clearedSessionCookies() };
		}
		return this.checkToken(token, null, req);
	}

	/** POST /api/session: the token the page's prompt posts once; the answer sets the cookie. */
	async signIn(token: string, req: Pick<RequestFacts, 'origin' | 'clientAddress'>): Promise<Refusal | { setCookies: string[] }> {
		const { token: expected, sessions } = this.options;
		if (expected === undefined || sessions === undefined) {
			return refusal('BAD_REQUEST', 'This service has no SOPHOS_TOKEN: there is nothing to sign in to');
		}
		const refused = this.checkToken(expected, token, req);
		if (refused) return refused;
		// The page posts this, and its Origin says whether it was loaded over https (through a TLS
		// proxy: Sophos itself speaks http), which no header a proxy adds needs to be trusted for.
		const secure = req.origin?.startsWith('https://') ?? false;
		const [, legacy] = clearedSessionCookies();
		return { setCookies: [sessionCookie(await sessions.open(), SESSION_TTL_MS / 1000, secure), legacy!] };
	}

	/** DELETE /api/session: ends the sessions the request's cookies name, and drops the cookies. */
	async signOut(req: Pick<RequestFacts, 'sessionIds'>): Promise<{ setCookies: string[] }> {
		await this.options.sessions?.close(req.sessionIds);
		return { setCookies: clearedSessionCookies() };
	}

	private checkToken(expected: string, presented: string | null, req: Pick<RequestFacts, 'clientAddress'>): Refusal | null {
		const { throttle } = this.options;
		const address = req.clientAddress();
		const waitMs = throttle.retryAfterMs(address);
		if (waitMs > 0) {
			const seconds = Math.ceil(waitMs / 1000);
			return refusal('TOO_MANY_ATTEMPTS', `Too many wrong tokens from this address: try again in ${seconds} s`, {
				'Retry-After': String(seconds)
			});
		}
		if (presented === null) {
			return refusal('UNAUTHORIZED', 'A token is required: send Authorization: Bearer <SOPHOS_TOKEN>', {
				'WWW-Authenticate': CHALLENGE
			});
		}
		if (tokenMatches(presented, expected)) {
			throttle.succeeded(address);
			return null;
		}
		throttle.failed(address);
		return refusal('UNAUTHORIZED', 'Wrong token', { 'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"` });
	}
}
