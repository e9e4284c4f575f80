import { describe, expect, it } from 'vitest';
import { postToken, watchUnauthorized } from '../../../src/lib/client/session-api';

const answer = (status: number, body?: unknown): typeof fetch =>
	async () => new Response(body === undefined ? null : JSON.stringify(body), { status });

describe('session api', () => {
	it('raises the prompt on a 401 only', async () => {
		let raised = 0;
		for (const status of [200, 204, 403, 429, 500]) await watchUnauthorized(answer(status), () => raised++)('/api/x');
		expect(raised).toBe(0);
		const res = await watchUnauthorized(answer(401, { error: { code: 'UNAUTHORIZED' } }), () => raised++)('/api/x');
		expect(raised).toBe(1);
		expect(res.status).toBe(401);
	});

	it('posts the token as JSON to /api/session', async () => {
		const sent: [string, RequestInit][] = [];
		const fetchImpl = (async (url: string, init: RequestInit) => {
			sent.push([url, init]);
			return new Response(null, { status: 204 });
		}) as typeof fetch;
		expect(await postToken('t0ken', fetchImpl)).toBeNull();
		expect(sent).toEqual([['/api/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"token":"t0ken"}' }]]);
	});

	it.each([
		[answer(401, { error: { code: 'UNAUTHORIZED', message: 'Wrong token' } }), 'That is not the token.'],
		[answer(429, { error: { code: 'TOO_MANY_ATTEMPTS', message: 'try again in 30 s' } }), 'try again in 30 s'],
		[answer(502), 'The server answered 502.'],
		[(async () => new Response('<html>', { status: 500 })) as typeof fetch, 'The server answered 500.'],
		[(async () => Promise.reject(new TypeError('offline'))) as typeof fetch, 'Failed to connect to the server.']
	])('says what went wrong (%#)', async (fetchImpl, message) => {
		expect(await postToken('t0ken', fetchImpl)).toBe(message);
	});
});
