/**
 * The front door, asked before any route runs (src/hooks.server.ts): the Host must be one Sophos
 * answers to, a state-changing request must come from its own page or an allowed origin, and
 * with SOPHOS_TOKEN set every /api route but liveness needs the token. Knows nothing of
 * SvelteKit: the hook hands it the facts of the request.
 */
import { API_ERROR_STATUS, type ApiErrorCode } from '../../protocol';
import { jsonResponse } from './api-error';
import type { AuthThrottle } from './auth-throttle';
import { isAllowedHost, type HostEntry } from './host-allow-list';
import { originRefusal } from './origin-check';
import { clearedSessionCookie, sessionCookie } from './session-cookie';
import { presentedToken, tokenMatches } from './token-check';

export type RequestFacts = {
	method: string;
	pathname: string;
	/** Headers as sent, null when absent. */
	host: string | null;
	origin: string | null;
	fetchSite: string | null;
	authorization: string | null;
	/** The session cookie's value, undefined when absent. */
	cookie: string | undefined;
	/** Asked only when a token is checked: with ADDRESS_HEADER set it can throw. */
	clientAddress: () => string;
};

export type Refusal = { code: ApiErrorCode; message: string; headers: Record<string, string> };

export type GuardOptions = {
	allowedHosts: readonly HostEntry[];
	allowedOrigins: readonly string[];
	/** SOPHOS_TOKEN; undefined: no token is asked for. */
	token: string | undefined;
	throttle: AuthThrottle;
};

/** Liveness stays open so a supervisor can probe it; the session route takes the token itself. */
const OPEN_PATHS = new Set(['/api/healthz', '/api/session']);

const CHALLENGE = 'Bearer realm="sophos"';

const refusal = (code: ApiErrorCode, message: string, headers: Record<string, string> = {}): Refusal => ({
	code,
	message,
	headers
});

export function refusalResponse(r: Refusal): Response {
	return jsonResponse({ error: { code: r.code, message: r.message } }, API_ERROR_STATUS[r.code], r.headers);
}

export class RequestGuard {
	constructor(private readonly options: GuardOptions) {}

	/** Null when the request may reach its route. */
	check(req: RequestFacts): Refusal | null {
		if (!isAllowedHost(req.host, this.options.allowedHosts)) {
			return refusal(
				'HOST_NOT_ALLOWED',
				`Host ${JSON.stringify(req.host ?? '')} is not served: Sophos answers loopback names and ALLOWED_HOSTS only`
			);
		}
		const origin = originRefusal({ ...req, allowed: this.options.allowedOrigins });
		if (origin) return refusal('ORIGIN_NOT_ALLOWED', origin);
		const guarded = req.pathname === '/api' || (req.pathname.startsWith('/api/') && !OPEN_PATHS.has(req.pathname));
		const { token } = this.options;
		if (!guarded || token === undefined) return null;
		const fromCookie = req.authorization === null && req.cookie !== undefined;
		return this.checkToken(token, presentedToken(req.authorization, req.cookie), req, fromCookie);
	}

	/** POST /api/session: the token the page's prompt posts once; the answer sets the cookie. */
	signIn(token: string, req: Pick<RequestFacts, 'origin' | 'clientAddress'>): Refusal | { setCookie: string } {
		const expected = this.options.token;
		if (expected === undefined) {
			return refusal('BAD_REQUEST', 'This service has no SOPHOS_TOKEN: there is nothing to sign in to');
		}
		// The page posts this, and its Origin says whether it was loaded over https (through a TLS
		// proxy: Sophos itself speaks http), which no header a proxy adds needs to be trusted for.
		const secure = req.origin?.startsWith('https://') ?? false;
		return this.checkToken(expected, token, req, false) ?? { setCookie: sessionCookie(expected, secure) };
	}

	private checkToken(
		expected: string,
		presented: string | null,
		req: Pick<RequestFacts, 'clientAddress'>,
		clearCookie: boolean
	): Refusal | null {
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
		return refusal('UNAUTHORIZED', 'Wrong token', {
			'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"`,
			...(clearCookie ? { 'Set-Cookie': clearedSessionCookie() } : {})
		});
	}
}
