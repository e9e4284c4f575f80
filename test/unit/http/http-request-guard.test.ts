import { describe, expect, it } from 'vitest';
import { AuthThrottle } from '../../../src/lib/server/http/auth-throttle';
import { parseHostEntry } from '../../../src/lib/server/http/host-allow-list';
import { RequestGuard, refusalResponse, type RequestFacts } from '../../../src/lib/server/http/request-guard';
import { SessionKeeper } from '../../../src/lib/server/http/session-keeper';
import type { SessionStorage } from '../../../src/lib/server/storage/session-storage';

const TOKEN = 'right-token-of-some-length';
const OWN = 'http://127.0.0.1:3000';

/** The contract's behaviour over a Map; the engines' own are proven by the shared storage suite. */
function memorySessions(): SessionStorage & { rows: Map<string, string> } {
	const rows = new Map<string, string>();
	return {
		rows,
		create: async (digest, expiresAt) => void rows.set(digest, expiresAt),
		isLive: async (digest, now) => (rows.get(digest) ?? '') > now,
		delete: async (digest) => rows.delete(digest),
		prune: async (now) => {
			const expired = [...rows].filter(([, at]) => at <= now);
			for (const [d] of expired) rows.delete(d);
			return expired.length;
		}
	};
}

function guardOf(token: string | null = TOKEN, sessions = memorySessions()) {
	let t = Date.UTC(2026, 0, 1);
	const throttle = new AuthThrottle(() => t);
	const keeper = token === null ? undefined : new SessionKeeper(sessions, token, () => t);
	const guard = new RequestGuard({
		allowedHosts: [parseHostEntry('sophos.lan')],
		allowedOrigins: ['https://app.example.com'],
		token: token ?? undefined,
		throttle,
		sessions: keeper
	});
	return { guard, sessions, advance: (ms: number) => (t += ms) };
}

const req = (over: Partial<RequestFacts> = {}): RequestFacts => ({
	method: 'GET',
	pathname: '/api/conversations',
	host: '127.0.0.1:3000',
	hostHeaders: 1,
	origin: null,
	fetchSite: null,
	authorization: `Bearer ${TOKEN}`,
	sessionIds: [],
	clientAddress: () => '127.0.0.1',
	...over
});

/** Signs in and returns the session id the cookie carries. */
async function signedIn(guard: RequestGuard): Promise<string> {
	const result = await guard.signIn(TOKEN, req());
	if ('code' in result) throw new Error(result.message);
	return /^sophos_session=([^;]+);/.exec(result.setCookies[0]!)![1]!;
}

describe('request guard', () => {
	it('checks the Host first, on every path, the open ones too', async () => {
		const { guard } = guardOf();
		for (const pathname of ['/', '/api/healthz', '/api/session', '/api/chat', '/api/conversations/x/export']) {
			expect((await guard.check(req({ pathname, host: 'evil.example:3000' })))?.code, pathname).toBe('HOST_NOT_ALLOWED');
		}
		expect(await guard.check(req({ host: 'sophos.lan' }))).toBeNull();
	});

	it('refuses a second Host header, on every path (issue 21)', async () => {
		const { guard } = guardOf(null);
		for (const pathname of ['/', '/api/healthz', '/api/conversations']) {
			expect(await guard.check(req({ pathname, hostHeaders: 2 })), pathname).toMatchObject({
				code: 'HOST_NOT_ALLOWED',
				message: 'More than one Host header was sent: send one'
			});
		}
	});

	it('refuses a cross-site state change before it looks at the token', async () => {
		const { guard } = guardOf();
		const refused = await guard.check(req({ method: 'POST', pathname: '/api/runs/x/cancel', origin: 'https://evil.example', authorization: null }));
		expect(refused?.code).toBe('ORIGIN_NOT_ALLOWED');
		expect(await guard.check(req({ method: 'POST', origin: 'https://app.example.com', fetchSite: 'cross-site' }))).toBeNull();
	});

	it('refuses a cross-site or same-site read of anything but the page shell, token or not (issue 21)', async () => {
		for (const token of [TOKEN, null]) {
			const { guard } = guardOf(token);
			for (const over of [{ origin: 'http://localhost:8080' }, { fetchSite: 'cross-site' }, { fetchSite: 'same-site' }]) {
				for (const pathname of ['/api/chat', '/api/conversations', '/api/readyz', '/api/healthz']) {
					expect((await guard.check(req({ pathname, ...over })))?.code, `${pathname} ${JSON.stringify(over)}`).toBe('ORIGIN_NOT_ALLOWED');
				}
				expect(await guard.check(req({ pathname: '/', authorization: null, ...over }))).toBeNull();
			}
			expect(await guard.check(req({ origin: OWN, fetchSite: 'same-origin' }))).toBeNull();
			expect(await guard.check(req({ fetchSite: 'none' }))).toBeNull();
			expect(await guard.check(req({ origin: 'https://app.example.com', fetchSite: 'cross-site' }))).toBeNull();
		}
	});

	it.each([
		['a right bearer token', null, {}],
		['no token', 'UNAUTHORIZED', { authorization: null }],
		['a wrong bearer token', 'UNAUTHORIZED', { authorization: 'Bearer nope' }],
		['SOPHOS_TOKEN itself as the cookie', 'UNAUTHORIZED', { authorization: null, sessionIds: [TOKEN] }],
		['a made-up session id', 'UNAUTHORIZED', { authorization: null, sessionIds: ['a'.repeat(43)] }],
		['a Basic header', 'UNAUTHORIZED', { authorization: 'Basic eDp5' }],
		['no token on the page', null, { authorization: null, pathname: '/' }],
		['no token on liveness', null, { authorization: null, pathname: '/api/healthz' }],
		['no token on readiness', 'UNAUTHORIZED', { authorization: null, pathname: '/api/readyz' }],
		['no token on an unknown API path', 'UNAUTHORIZED', { authorization: null, pathname: '/api/nothing-here' }],
		['no token on /api itself', 'UNAUTHORIZED', { authorization: null, pathname: '/api' }],
		['no token on the SSE stream', 'UNAUTHORIZED', { authorization: null, pathname: '/api/chat' }],
		['no token on a page path', 'UNAUTHORIZED', { authorization: null, pathname: '/anything' }],
		['/api spelled %61pi', 'UNAUTHORIZED', { authorization: null, pathname: '/%61pi/conversations' }],
		['/api spelled ap%69', 'UNAUTHORIZED', { authorization: null, pathname: '/ap%69/chat' }],
		['/api spelled %2561pi', 'UNAUTHORIZED', { authorization: null, pathname: '/%2561pi/chat' }],
		['liveness spelled otherwise', 'UNAUTHORIZED', { authorization: null, pathname: '/api/health%7a' }],
		['the page spelled otherwise', 'UNAUTHORIZED', { authorization: null, pathname: '//' }]
	] as const)('with SOPHOS_TOKEN set, %s → %s', async (_, code, over) => {
		expect((await guardOf().guard.check(req(over)))?.code ?? null).toBe(code);
	});

	it('passes a live session, beside a planted cookie too, and drops cookies that name none', async () => {
		const { guard } = guardOf();
		const id = await signedIn(guard);
		expect(await guard.check(req({ authorization: null, sessionIds: [id] }))).toBeNull();
		expect(await guard.check(req({ authorization: null, sessionIds: ['planted', id] }))).toBeNull();
		// A header, when sent, is what is judged.
		expect((await guard.check(req({ authorization: 'Bearer nope', sessionIds: [id] })))?.code).toBe('UNAUTHORIZED');
		const res = refusalResponse((await guard.check(req({ authorization: null, sessionIds: ['stale'] })))!);
		expect(res.status).toBe(401);
		expect(res.headers.getSetCookie()).toEqual([
			'sophos_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict',
			'sophos_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict'
		]);
		expect(await res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'The session has ended: sign in again' } });
		const missing = (await guard.check(req({ authorization: null })))!;
		expect(missing.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="sophos"' });
		const wrong = (await guard.check(req({ authorization: 'Bearer wrong' })))!;
		expect(wrong.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="sophos", error="invalid_token"' });
		expect(wrong.setCookies).toBeUndefined();
	});

	it('keeps only a digest of the session id, ends it at logout, at expiry and when the token changes', async () => {
		const sessions = memorySessions();
		const { guard, advance } = guardOf(TOKEN, sessions);
		const kept = await signedIn(guard);
		const ended = await signedIn(guard);
		expect(sessions.rows.size).toBe(2);
		for (const digest of sessions.rows.keys()) expect([kept, ended, TOKEN]).not.toContain(digest);
		expect(await guard.signOut(req({ sessionIds: [ended] }))).toEqual({ setCookies: expect.arrayContaining([expect.stringMatching(/^sophos_session=; /)]) });
		expect((await guard.check(req({ authorization: null, sessionIds: [ended] })))?.code).toBe('UNAUTHORIZED');
		expect(await guard.check(req({ authorization: null, sessionIds: [kept] }))).toBeNull();

		const renewed = guardOf('a-new-token-of-some-length', sessions).guard;
		expect((await renewed.check(req({ authorization: null, sessionIds: [kept] })))?.code).toBe('UNAUTHORIZED');

		advance(30 * 24 * 60 * 60_000);
		expect((await guard.check(req({ authorization: null, sessionIds: [kept] })))?.code).toBe('UNAUTHORIZED');
	});

	it('lets the OAuth callback in without token or same-origin, as a GET only, behind the Host check (issue 24)', async () => {
		const { guard } = guardOf();
		const callback = { pathname: '/api/mcp/docs/callback', authorization: null, fetchSite: 'cross-site' };
		expect(await guard.check(req(callback))).toBeNull();
		expect((await guard.check(req({ ...callback, host: 'evil.example' })))?.code).toBe('HOST_NOT_ALLOWED');
		expect((await guard.check(req({ ...callback, method: 'POST' })))?.code).toBe('ORIGIN_NOT_ALLOWED');
		expect((await guard.check(req({ ...callback, method: 'HEAD' })))?.code).toBe('ORIGIN_NOT_ALLOWED');
		expect((await guard.check(req({ ...callback, pathname: '/api/mcp/do%63s/callback' })))?.code).toBe('ORIGIN_NOT_ALLOWED');
		expect((await guard.check(req({ pathname: '/api/mcp/docs/sign-in', authorization: null })))?.code).toBe('UNAUTHORIZED');
		expect((await guard.check(req({ pathname: '/api/mcp/docs/callback', authorization: null, method: 'POST' })))?.code).toBe('UNAUTHORIZED');
	});

	it('asks for nothing without SOPHOS_TOKEN', async () => {
		const { guard } = guardOf(null);
		expect(await guard.check(req({ authorization: null }))).toBeNull();
		expect(await guard.check(req({ authorization: 'Bearer anything' }))).toBeNull();
		expect(await guard.signIn(TOKEN, req())).toMatchObject({ code: 'BAD_REQUEST' });
	});

	it('signs the page in with a session cookie, Secure when the page is on https', async () => {
		const { guard } = guardOf();
		expect(await guard.signIn(TOKEN, req())).toEqual({
			setCookies: [
				expect.stringMatching(/^sophos_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict$/),
				'sophos_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict'
			]
		});
		expect(await guard.signIn(TOKEN, req({ method: 'POST', origin: 'https://sophos.lan', host: 'sophos.lan' }))).toEqual({
			setCookies: [expect.stringMatching(/; Secure$/), expect.any(String)]
		});
		expect(await guard.signIn('wrong', req())).toMatchObject({ code: 'UNAUTHORIZED' });
	});

	it('slows guessing: past five wrong tokens an address waits, even with the right one', async () => {
		const { guard, advance } = guardOf();
		const wrong = [
			() => guard.check(req({ authorization: 'Bearer a' })),
			() => guard.check(req({ authorization: 'Bearer b', pathname: '/api/readyz' })),
			() => guard.signIn('c', req()),
			() => guard.check(req({ authorization: 'Bearer d', pathname: '/api/chat' })),
			() => guard.signIn('e', req())
		];
		for (const attempt of wrong) expect(await attempt()).toMatchObject({ code: 'UNAUTHORIZED' });
		const blocked = (await guard.check(req()))!;
		expect(blocked).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', headers: { 'Retry-After': '30' } });
		expect(refusalResponse(blocked).status).toBe(429);
		expect(await guard.signIn(TOKEN, req())).toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
		expect(await guard.check(req({ clientAddress: () => '10.0.0.2' }))).toBeNull();
		expect(await guard.check(req({ authorization: null, pathname: '/api/healthz' }))).toBeNull();
		advance(30_000);
		expect(await guard.check(req())).toBeNull();
		expect(await guard.check(req({ authorization: 'Bearer f' }))).toMatchObject({ code: 'UNAUTHORIZED' });
	});

	it('counts every loopback address as one client (issue 21)', async () => {
		const { guard } = guardOf();
		const addresses = ['127.0.0.2', '127.0.0.3', '::1', '::ffff:127.0.0.9', '127.255.255.254'];
		for (const address of addresses) {
			expect(await guard.check(req({ authorization: 'Bearer guess', clientAddress: () => address }))).toMatchObject({ code: 'UNAUTHORIZED' });
		}
		for (const address of ['127.0.0.1', '127.0.0.77', '::1']) {
			expect((await guard.check(req({ clientAddress: () => address })))?.code).toBe('TOO_MANY_ATTEMPTS');
		}
		expect(await guard.check(req({ clientAddress: () => '192.168.1.5' }))).toBeNull();
	});

	it('lets a live session through while its address waits, and counts no wrong cookie (issue 21)', async () => {
		const { guard } = guardOf();
		const id = await signedIn(guard);
		for (let i = 0; i < 50; i++) {
			expect((await guard.check(req({ authorization: null, sessionIds: [`planted-${i}`] })))?.code).toBe('UNAUTHORIZED');
		}
		expect(await guard.check(req())).toBeNull();
		for (let i = 0; i < 5; i++) await guard.check(req({ authorization: 'Bearer guess' }));
		expect((await guard.check(req()))?.code).toBe('TOO_MANY_ATTEMPTS');
		expect(await guard.check(req({ authorization: null, sessionIds: ['planted', id] }))).toBeNull();
	});

	it('does not count a request that presents no token as a guess', async () => {
		const { guard } = guardOf();
		for (let i = 0; i < 20; i++) expect((await guard.check(req({ authorization: null })))?.code).toBe('UNAUTHORIZED');
		expect(await guard.check(req())).toBeNull();
	});
});
