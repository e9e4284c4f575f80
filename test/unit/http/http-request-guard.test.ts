import { describe, expect, it } from 'vitest';
import { AuthThrottle } from '../../../src/lib/server/http/auth-throttle';
import { parseHostEntry } from '../../../src/lib/server/http/host-allow-list';
import { RequestGuard, refusalResponse, type RequestFacts } from '../../../src/lib/server/http/request-guard';

const TOKEN = 'right-token-of-some-length';
const OWN = 'http://127.0.0.1:3000';

function guardOf(token: string | null = TOKEN) {
	let t = 0;
	const throttle = new AuthThrottle(() => t);
	const guard = new RequestGuard({
		allowedHosts: [parseHostEntry('sophos.lan')],
		allowedOrigins: ['https://app.example.com'],
		token: token ?? undefined,
		throttle
	});
	return { guard, advance: (ms: number) => (t += ms) };
}

const req = (over: Partial<RequestFacts> = {}): RequestFacts => ({
	method: 'GET',
	pathname: '/api/conversations',
	host: '127.0.0.1:3000',
	origin: null,
	fetchSite: null,
	authorization: `Bearer ${TOKEN}`,
	cookie: undefined,
	clientAddress: () => '127.0.0.1',
	...over
});

describe('request guard', () => {
	it('checks the Host first, on every path, the open ones too', () => {
		const { guard } = guardOf();
		for (const pathname of ['/', '/api/healthz', '/api/session', '/api/chat', '/api/conversations/x/export']) {
			expect(guard.check(req({ pathname, host: 'evil.example:3000' }))?.code, pathname).toBe('HOST_NOT_ALLOWED');
		}
		expect(guard.check(req({ host: 'sophos.lan' }))).toBeNull();
	});

	it('refuses a cross-site state change before it looks at the token', () => {
		const { guard } = guardOf();
		const refused = guard.check(req({ method: 'POST', pathname: '/api/runs/x/cancel', origin: 'https://evil.example', authorization: null }));
		expect(refused?.code).toBe('ORIGIN_NOT_ALLOWED');
		expect(guard.check(req({ method: 'POST', origin: 'https://app.example.com', fetchSite: 'cross-site' }))).toBeNull();
	});

	it.each([
		['a right bearer token', null, {}],
		['a right cookie', null, { authorization: null, cookie: TOKEN }],
		['no token', 'UNAUTHORIZED', { authorization: null }],
		['a wrong bearer token', 'UNAUTHORIZED', { authorization: 'Bearer nope' }],
		['a wrong cookie', 'UNAUTHORIZED', { authorization: null, cookie: 'nope' }],
		['a Basic header', 'UNAUTHORIZED', { authorization: 'Basic eDp5' }],
		['a wrong bearer token with a right cookie', 'UNAUTHORIZED', { authorization: 'Bearer nope', cookie: TOKEN }],
		['no token on the page', null, { authorization: null, pathname: '/' }],
		['no token on liveness', null, { authorization: null, pathname: '/api/healthz' }],
		['no token on readiness', 'UNAUTHORIZED', { authorization: null, pathname: '/api/readyz' }],
		['no token on an unknown API path', 'UNAUTHORIZED', { authorization: null, pathname: '/api/nothing-here' }],
		['no token on /api itself', 'UNAUTHORIZED', { authorization: null, pathname: '/api' }],
		['no token on the SSE stream', 'UNAUTHORIZED', { authorization: null, pathname: '/api/chat' }]
	] as const)('with SOPHOS_TOKEN set, %s → %s', (_, code, over) => {
		expect(guardOf().guard.check(req(over))?.code ?? null).toBe(code);
	});

	it('answers 401 with a challenge, and drops a wrong cookie', async () => {
		const { guard } = guardOf();
		const missing = guard.check(req({ authorization: null }))!;
		expect(missing.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="sophos"' });
		const res = refusalResponse(guard.check(req({ authorization: null, cookie: 'stale' }))!);
		expect(res.status).toBe(401);
		expect(res.headers.get('www-authenticate')).toBe('Bearer realm="sophos", error="invalid_token"');
		expect(res.headers.get('set-cookie')).toMatch(/^sophos_token=; Path=\/; Max-Age=0/);
		expect(await res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Wrong token' } });
		expect(guard.check(req({ authorization: 'Bearer wrong' }))!.headers['Set-Cookie']).toBeUndefined();
	});

	it('asks for nothing without SOPHOS_TOKEN', () => {
		const { guard } = guardOf(null);
		expect(guard.check(req({ authorization: null }))).toBeNull();
		expect(guard.check(req({ authorization: 'Bearer anything' }))).toBeNull();
		expect(guard.signIn(TOKEN, req())).toMatchObject({ code: 'BAD_REQUEST' });
	});

	it('signs the page in with a cookie, Secure when the page is on https', () => {
		const { guard } = guardOf();
		expect(guard.signIn(TOKEN, req())).toEqual({ setCookie: expect.stringMatching(/^sophos_token=right-token-of-some-length; .*HttpOnly; SameSite=Strict$/) });
		expect(guard.signIn(TOKEN, req({ method: 'POST', origin: 'https://sophos.lan', host: 'sophos.lan' }))).toEqual({
			setCookie: expect.stringMatching(/; Secure$/)
		});
		expect(guard.signIn(TOKEN, req({ method: 'POST', origin: OWN }))).toEqual({ setCookie: expect.not.stringMatching(/Secure/) });
		expect(guard.signIn('wrong', req())).toMatchObject({ code: 'UNAUTHORIZED' });
	});

	it('slows guessing: past five wrong tokens an address waits, even with the right one', () => {
		const { guard, advance } = guardOf();
		const wrong = [
			() => guard.check(req({ authorization: 'Bearer a' })),
			() => guard.check(req({ authorization: null, cookie: 'b' })),
			() => guard.signIn('c', req()),
			() => guard.check(req({ authorization: 'Bearer d', pathname: '/api/chat' })),
			() => guard.signIn('e', req())
		];
		for (const attempt of wrong) expect(attempt()).toMatchObject({ code: 'UNAUTHORIZED' });
		const blocked = guard.check(req())!;
		expect(blocked).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', headers: { 'Retry-After': '30' } });
		expect(refusalResponse(blocked).status).toBe(429);
		expect(guard.signIn(TOKEN, req())).toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
		expect(guard.check(req({ clientAddress: () => '10.0.0.2' }))).toBeNull();
		expect(guard.check(req({ authorization: null, pathname: '/api/healthz' }))).toBeNull();
		advance(30_000);
		expect(guard.check(req())).toBeNull();
		expect(guard.check(req({ authorization: 'Bearer f' }))).toMatchObject({ code: 'UNAUTHORIZED' });
	});

	it('does not count a request that presents no token as a guess', () => {
		const { guard } = guardOf();
		for (let i = 0; i < 20; i++) expect(guard.check(req({ authorization: null }))?.code).toBe('UNAUTHORIZED');
		expect(guard.check(req())).toBeNull();
	});
});
