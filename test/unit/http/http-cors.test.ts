import { describe, expect, it } from 'vitest';
import { AuthThrottle } from '../../../src/lib/server/http/auth-throttle';
import { corsHeaders, isPreflight, isProtocolPath } from '../../../src/lib/server/http/cors';
import { RequestGuard, type RequestFacts } from '../../../src/lib/server/http/request-guard';
import { SessionKeeper } from '../../../src/lib/server/http/session-keeper';

const TOKEN = 'right-token-of-some-length';
const LISTED = 'http://127.0.0.1:5173';
const ALLOWED = [LISTED];

const facts = (over: Partial<{ method: string; pathname: string; origin: string | null; requestMethod: string | null }> = {}) => ({
	method: 'POST',
	pathname: '/threads/search',
	origin: LISTED,
	requestMethod: null,
	...over
});

describe('CORS for the protocol routes', () => {
	it('knows the protocol roots and what lies under them, and nothing else', () => {
		for (const p of ['/info', '/ok', '/threads', '/threads/x/runs/y/stream', '/assistants/search', '/runs/crons', '/store/items']) {
			expect(isProtocolPath(p), p).toBe(true);
		}
		for (const p of ['/', '/api/chat', '/threadsx', '/informal', '/api/threads']) expect(isProtocolPath(p), p).toBe(false);
	});

	it('answers a listed origin with its origin and the exposed headers, a preflight with methods and headers too', () => {
		expect(corsHeaders(facts(), ALLOWED)).toEqual({
			'Access-Control-Allow-Origin': LISTED,
			Vary: 'Origin',
			'Access-Control-Expose-Headers': 'Content-Location, Location'
		});
		const preflight = facts({ method: 'OPTIONS', requestMethod: 'POST' });
		expect(isPreflight(preflight, ALLOWED)).toBe(true);
		expect(corsHeaders(preflight, ALLOWED)).toMatchObject({
			'Access-Control-Allow-Headers': 'content-type, x-api-key, authorization, last-event-id',
			'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS'
		});
	});

	it('gives nothing to an unlisted origin, to no origin, or on Sophos\'s own API', () => {
		expect(corsHeaders(facts({ origin: 'http://evil.example' }), ALLOWED)).toEqual({});
		expect(corsHeaders(facts({ origin: null }), ALLOWED)).toEqual({});
		expect(corsHeaders(facts({ pathname: '/api/conversations' }), ALLOWED)).toEqual({});
		expect(isPreflight(facts({ method: 'OPTIONS', requestMethod: 'POST', origin: 'http://evil.example' }), ALLOWED)).toBe(false);
		expect(isPreflight(facts({ method: 'OPTIONS' }), ALLOWED)).toBe(false);
	});
});

describe('the token as x-api-key', () => {
	const guard = new RequestGuard({
		allowedHosts: [],
		allowedOrigins: ALLOWED,
		token: TOKEN,
		throttle: new AuthThrottle(),
		sessions: new SessionKeeper(
			{ create: async () => {}, isLive: async () => false, delete: async () => false, prune: async () => 0 },
			TOKEN
		)
	});
	const req = (over: Partial<RequestFacts>): RequestFacts => ({
		method: 'POST',
		pathname: '/threads/search',
		host: '127.0.0.1:3000',
		hostHeaders: 1,
		origin: null,
		fetchSite: null,
		authorization: null,
		sessionIds: [],
		clientAddress: () => '127.0.0.1',
		...over
	});

	it('is taken as Bearer is; a wrong one or none is refused', async () => {
		expect(await guard.check(req({ apiKey: TOKEN }))).toBeNull();
		expect(await guard.check(req({ apiKey: 'not-the-token-at-all' }))).toMatchObject({ code: 'UNAUTHORIZED', message: 'Wrong token' });
		expect(await guard.check(req({}))).toMatchObject({ code: 'UNAUTHORIZED' });
	});

	it('lets a listed origin\'s preflight through without it, never another origin\'s', async () => {
		expect(await guard.check(req({ method: 'OPTIONS', requestMethod: 'POST', origin: LISTED }))).toBeNull();
		expect(await guard.check(req({ method: 'OPTIONS', requestMethod: 'POST', origin: 'http://evil.example' }))).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
		expect(await guard.check(req({ method: 'OPTIONS', origin: LISTED }))).toMatchObject({ code: 'UNAUTHORIZED' });
	});

	it('leaves the protocol\'s liveness open, as /api/healthz is', async () => {
		expect(await guard.check(req({ method: 'GET', pathname: '/ok' }))).toBeNull();
		expect(await guard.check(req({ method: 'GET', pathname: '/info' }))).toMatchObject({ code: 'UNAUTHORIZED' });
	});
});
