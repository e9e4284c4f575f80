import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, type RawResponse } from '../support/raw-http';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';
import { readEvents } from '../support/sse';

const TOKEN = 'c29waG9zLXRlc3QtdG9rZW4tMTIzNDU2Nzg5';
const SECRET = 'Only for the token holder';

/**
 * Issue 13, the token: with SOPHOS_TOKEN set every /api route but liveness asks for it, by header
 * or by the page's cookie (EventSource included); a wrong one is counted, and past five an address
 * waits whatever it sends.
 */
describe('SOPHOS_TOKEN', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let conversation: string;
	let run: string;

	const bearer = { Authorization: `Bearer ${TOKEN}` };
	/** The page's session cookie, from a sign-in in beforeAll. */
	let cookie: { Cookie: string };
	const send = (path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) =>
		rawRequest(service.url + path, { method, headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers }, body });
	const errorOf = (res: RawResponse) => JSON.parse(res.body).error as { code: string; message: string };

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('Understood.'));
		service = await Service.start({ ollamaUrl: ollama.url, env: { SOPHOS_TOKEN: TOKEN, ALLOWED_HOSTS: 'sophos.test' } });
		const session = await send('/api/session', {}, 'POST', JSON.stringify({ token: TOKEN }));
		cookie = { Cookie: session.headers['set-cookie']![0]!.split(';')[0]! };
		const started = await send('/api/chat', bearer, 'POST', JSON.stringify({ message: SECRET }));
		({ conversation, run } = JSON.parse(started.body));
		await readEvents(await service.fetch(`/api/chat?conversation=${conversation}`, { headers: bearer }));
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	const guarded = (): [string, string, string?, number?][] => [
		['GET', '/api/readyz', undefined, 200],
		['GET', '/api/conversations'],
		['GET', `/api/conversations/${conversation}`],
		['GET', `/api/conversations/${conversation}/runs`],
		['GET', `/api/conversations/${conversation}/export`],
		['GET', `/api/conversations/${conversation}/export?format=jsonl`],
		['GET', `/api/chat?conversation=${conversation}`],
		['POST', `/api/runs/${run}/cancel`, '{}'],
		['POST', '/api/chat', JSON.stringify({ conversation, cancel: true })],
		['GET', '/api/allowed-tools'],
		['DELETE', '/api/allowed-tools/memory__read_graph', undefined, 404],
		['GET', '/api/no-such-route', undefined, 404]
	];

	it('answers every guarded route 401 without the token, and with a wrong one; with it, as usual', async () => {
		for (const [method, path, body, ok = 200] of guarded()) {
			const what = `${method} ${path}`;
			const missing = await send(path, {}, method, body);
			expect(missing.status, what).toBe(401);
			expect(missing.headers['www-authenticate'], what).toBe('Bearer realm="sophos"');
			expect(errorOf(missing), what).toEqual({ code: 'UNAUTHORIZED', message: 'A token is required: send Authorization: Bearer <SOPHOS_TOKEN>' });
			expect(missing.body, what).not.toContain(SECRET);

			const wrongs: Record<string, string>[] = [
				{ Authorization: `Bearer ${TOKEN}x` },
				{ Cookie: 'sophos_session=nope' },
				{ Cookie: `sophos_token=${TOKEN}` },
				{ Authorization: `Basic ${btoa(`x:${TOKEN}`)}` }
			];
			for (const wrong of wrongs) {
				const res = await send(path, wrong, method, body);
				expect(res.status, `${what} ${JSON.stringify(wrong)}`).toBe(401);
				expect(res.body).not.toContain(SECRET);
			}
			// A right token clears the count of wrong ones, so this table never reaches the throttle.
			const rights: Record<string, string>[] = [bearer, cookie, { ...cookie, Authorization: `Bearer ${TOKEN}` }];
			for (const right of rights) {
				expect((await send(path, right, method, body)).status, `${what} ${Object.keys(right)}`).toBe(ok);
			}
		}
		const detail = await send(`/api/conversations/${conversation}`, cookie);
		expect(detail.body).toContain(SECRET);
	});

	it('drops a cookie that names no live session', async () => {
		const res = await send('/api/conversations', { Cookie: 'sophos_session=stale-session-from-before' });
		expect(res.status).toBe(401);
		expect(res.headers['set-cookie']).toEqual([
			'sophos_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict',
			'sophos_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict'
		]);
		expect((await send('/api/conversations', bearer)).status).toBe(200);
	});

	it('keeps liveness and the page shell open, with nothing of a conversation in them', async () => {
		const health = await send('/api/healthz');
		expect(health.status).toBe(200);
		expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
		const page = await send(`/?c=${conversation}`);
		expect(page.status).toBe(200);
		expect(page.body).not.toContain(SECRET);
	});

	it('streams SSE to a client with the cookie, as an EventSource is', async () => {
		const res = await service.fetch(`/api/chat?conversation=${conversation}`, { headers: cookie });
		expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
		expect(await readEvents(res)).toEqual([{ event: 'end', data: { conversation, status: 'completed' } }]);
		const refused = await service.fetch(`/api/chat?conversation=${conversation}`);
		expect(refused.status).toBe(401);
	});

	it('signs a page in: the token once, back as a session id in an HttpOnly, SameSite=Strict cookie, Secure on https', async () => {
		const own = `http://127.0.0.1:${service.port}`;
		const post = (body: string, headers: Record<string, string> = {}) =>
			send('/api/session', { Origin: own, 'Sec-Fetch-Site': 'same-origin', ...headers }, 'POST', body);
		const res = await post(JSON.stringify({ token: TOKEN }));
		expect(res.status).toBe(204);
		expect(res.headers['set-cookie']).toEqual([
			expect.stringMatching(/^sophos_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict$/),
			'sophos_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict'
		]);
		expect(res.headers['set-cookie']!.join()).not.toContain(TOKEN);
		expect(res.headers['cache-control']).toBe('no-store');

		const proxied = await post(JSON.stringify({ token: TOKEN }), { Host: 'sophos.test', Origin: 'https://sophos.test' });
		expect(proxied.status).toBe(204);
		expect(proxied.headers['set-cookie']![0]).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);

		const wrong = await post(JSON.stringify({ token: 'not-the-token-at-all' }));
		expect(wrong.status).toBe(401);
		expect(wrong.headers['set-cookie']).toBeUndefined();

		const hostile: [string, number][] = [
			['', 400],
			['{"token":', 400],
			['null', 400],
			['[]', 400],
			['{}', 400],
			['{"token":""}', 400],
			['{"token":42}', 400],
			[JSON.stringify({ token: TOKEN, admin: true }), 400],
			[JSON.stringify({ token: 'x'.repeat(5000) }), 400],
			[JSON.stringify({ token: 'x'.repeat(9000) }), 413]
		];
		for (const [body, status] of hostile) {
			const r = await post(body);
			expect(r.status, body.slice(0, 40)).toBe(status);
			expect(r.headers['set-cookie'], body.slice(0, 40)).toBeUndefined();
		}
		expect((await post(JSON.stringify({ token: TOKEN }))).status).toBe(204);
	});

	it('answers an ALLOWED_HOSTS name with the token, and any other name not even with it', async () => {
		expect((await send('/api/conversations', { ...bearer, Host: `sophos.test:${service.port}` })).status).toBe(200);
		expect((await send('/api/conversations', { ...bearer, Host: 'sophos.test' })).status).toBe(200);
		const foreign = await send('/api/conversations', { ...bearer, Host: 'evil.example' });
		expect(foreign.status).toBe(421);
		expect(foreign.body).not.toContain(SECRET);
	});

	// Last: it leaves this address waiting.
	it('makes an address wait after five wrong tokens, even for the right one; liveness stays open', async () => {
		const wrong = [
			() => send('/api/conversations', { Authorization: 'Bearer guess-1' }),
			() => send('/api/conversations', { Authorization: 'Bearer guess-2' }),
			() => send('/api/session', {}, 'POST', JSON.stringify({ token: 'guess-3' })),
			() => send(`/api/chat?conversation=${conversation}`, { Authorization: 'Bearer guess-4' }),
			() => send('/api/readyz', { Authorization: 'Bearer guess-5' })
		];
		for (const attempt of wrong) expect((await attempt()).status).toBe(401);
		for (const res of [await send('/api/conversations', bearer), await send('/api/session', {}, 'POST', JSON.stringify({ token: TOKEN }))]) {
			expect(res.status).toBe(429);
			expect(errorOf(res)).toEqual({ code: 'TOO_MANY_ATTEMPTS', message: expect.stringMatching(/^Too many wrong tokens from this address: try again in \d+ s$/) });
			expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
			expect(res.body).not.toContain(SECRET);
		}
		expect((await send('/api/healthz')).status).toBe(200);
	});
});
