import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service, TEST_ENGINE } from '../support/service';
import { sseMessages } from '../support/sse';

const TOKEN = 'ZG9vci10ZXN0LXRva2VuLTk4NzY1NDMyMQ';
const SECRET = 'The safe code is 7730';

/**
 * Issue 21, item 1, through the built service: the ways past the token and the front door that
 * main left open, each tried as a local process or a proxy would send it.
 */
describe('the front door, issue 21', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let conversation: string;
	let run: string;

	const bearer = { Authorization: `Bearer ${TOKEN}` };
	const send = (p: string, headers: Record<string, string> | string[] = {}, method = 'GET', body?: string, localAddress?: string) =>
		rawRequest(service.url + p, {
			method,
			headers: Array.isArray(headers) ? headers : { ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
			body,
			localAddress
		});
	const signIn = async () => {
		const res = await send('/api/session', {}, 'POST', JSON.stringify({ token: TOKEN }));
		expect(res.status).toBe(204);
		return res.headers['set-cookie']![0]!.split(';')[0]!.slice('sophos_session='.length);
	};
	/** The first event a reader of the held run is sent. */
	const firstEvent = async (headers: Record<string, string>) => {
		const controller = new AbortController();
		const res = await service.fetch(`/api/chat?conversation=${conversation}`, { headers: { ...bearer, ...headers }, signal: controller.signal });
		expect(res.status).toBe(200);
		for await (const e of sseMessages(res)) {
			controller.abort();
			return e;
		}
	};

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript(`${SECRET}, said once and held.`, { hold: 'live', holdAfterChunks: 2 }));
		service = await Service.start({ ollamaUrl: ollama.url, env: { SOPHOS_TOKEN: TOKEN } });
		const started = await send('/api/chat', bearer, 'POST', JSON.stringify({ message: SECRET }));
		({ conversation, run } = JSON.parse(started.body));
		await ollama.held('live');
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it('answers no percent-encoded spelling of /api without the token, and lets none of them change anything', async () => {
		const spellings = ['/%61pi', '/ap%69', '/%41PI', '/a%70i', '/%2561pi'];
		for (const api of spellings) {
			const attempts: [string, string, string?][] = [
				['GET', `${api}/conversations`],
				['GET', `${api}/conversations/${conversation}`],
				['GET', `${api}/conversations/${conversation}/export`],
				['GET', `${api}/chat?conversation=${conversation}`],
				['GET', `${api}/readyz`],
				['POST', `${api}/chat`, JSON.stringify({ message: 'pwned' })],
				['POST', `${api}/runs/${run}/cancel`, '{}'],
				['DELETE', `${api}/conversations/${conversation}`]
			];
			for (const [method, p, body] of attempts) {
				const res = await send(p, {}, method, body);
				expect(res.status, `${method} ${p}`).toBe(401);
				expect(res.body, `${method} ${p}`).not.toContain(SECRET);
			}
		}
		const list = JSON.parse((await send('/api/conversations', bearer)).body);
		expect(list.conversations.map((c: { id: string }) => c.id)).toEqual([conversation]);
		expect(JSON.parse((await send(`/api/conversations/${conversation}`, bearer)).body).conversation.status).toBe('running');
	});

	it('refuses two Host headers, a hostile one behind a loopback one', async () => {
		const own = `127.0.0.1:${service.port}`;
		for (const hosts of [[own, 'evil.example'], [own, own]]) {
			const res = await send('/api/healthz', hosts.flatMap((h) => ['Host', h]));
			expect(res.status, hosts.join()).toBe(421);
			expect(JSON.parse(res.body).error.code).toBe('HOST_NOT_ALLOWED');
		}
		expect((await send('/api/healthz', ['Host', own])).status).toBe(200);
	});

	it('reads Last-Event-ID as decimal digits only: 0x10 replays from the start', async () => {
		const fromStart = await firstEvent({});
		expect(fromStart?.id).toBe('1');
		for (const id of ['0x10', '1e1', '+2', '0b10', '2.0', '2x']) expect(await firstEvent({ 'Last-Event-ID': id }), id).toEqual(fromStart);
		expect((await firstEvent({ 'Last-Event-ID': '1' }))?.id).toBe('2');
	});

	it('refuses a cross-site or same-site read of the API, the stream too, with the token or a session', async () => {
		const id = await signIn();
		const credentials = [bearer, { Cookie: `sophos_session=${id}` }];
		const foreign: Record<string, string>[] = [{ Origin: 'http://attacker.example' }, { 'Sec-Fetch-Site': 'cross-site' }, { Origin: 'http://localhost:9999', 'Sec-Fetch-Site': 'same-site' }];
		for (const credential of credentials) {
			for (const from of foreign) {
				for (const p of [`/api/chat?conversation=${conversation}`, '/api/conversations', `/api/conversations/${conversation}/export`]) {
					const res = await send(p, { ...credential, ...from });
					expect(res.status, `${p} ${JSON.stringify(from)}`).toBe(403);
					expect(JSON.parse(res.body).error.code).toBe('ORIGIN_NOT_ALLOWED');
					expect(res.body).not.toContain(SECRET);
				}
			}
		}
		// The page itself may still be opened from a link elsewhere; its own page's reads go through.
		expect((await send('/', { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(200);
		const own = { Origin: `http://127.0.0.1:${service.port}`, 'Sec-Fetch-Site': 'same-origin' };
		expect((await send('/api/conversations', { ...bearer, ...own })).status).toBe(200);
	});

	it('keeps a session id in the cookie, stored only as a digest, and ends it at logout', async () => {
		const id = await signIn();
		expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
		expect(id).not.toContain(TOKEN);
		const cookie = { Cookie: `sophos_session=${id}` };
		expect((await send('/api/conversations', cookie)).status).toBe(200);
		// The token itself, in the cookie that used to carry it, opens nothing.
		expect((await send('/api/conversations', { Cookie: `sophos_token=${TOKEN}` })).status).toBe(401);
		if (TEST_ENGINE === 'sqlite') {
			const db = new Database(path.join(service.options.dataDir, 'sophos.db'), { readonly: true });
			const rows = db.prepare('SELECT digest FROM sessions').all() as { digest: string }[];
			db.close();
			expect(rows.length).toBeGreaterThan(0);
			for (const { digest } of rows) {
				expect(digest).not.toBe(id);
				expect(digest).not.toContain(TOKEN);
			}
		}
		const out = await send('/api/session', { ...cookie, Origin: `http://127.0.0.1:${service.port}` }, 'DELETE');
		expect(out.status).toBe(204);
		expect(out.headers['set-cookie']).toContain('sophos_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
		expect((await send('/api/conversations', cookie)).status).toBe(401);
	});

	it('lets neither a planted cookie beside the real one nor a flood of them lock the person out', async () => {
		const id = await signIn();
		// A page on another port of this host sets cookies of the same name; a longer Path is sent first.
		const planted = { Cookie: `sophos_session=${'A'.repeat(43)}; sophos_session=${id}` };
		expect((await send('/api/conversations', planted)).status).toBe(200);
		for (let i = 0; i < 20; i++) expect((await send('/api/conversations', { Cookie: `sophos_session=planted${i}` })).status).toBe(401);
		expect((await send('/api/conversations', { Cookie: `sophos_session=${id}` })).status).toBe(200);
		expect((await send('/api/conversations', bearer)).status).toBe(200);
	});

	// Last: it leaves loopback waiting (a live session still passes).
	it('counts the whole loopback range as one client: guesses from 127.0.0.2… make 127.0.0.1 wait too', async () => {
		const id = await signIn();
		for (let i = 2; i <= 6; i++) {
			const res = await send('/api/conversations', { Authorization: `Bearer guess-${i}` }, 'GET', undefined, `127.0.0.${i}`);
			expect(res.status, `127.0.0.${i}`).toBe(401);
		}
		for (const from of ['127.0.0.1', '127.0.0.7', '127.0.0.200']) {
			const res = await send('/api/conversations', bearer, 'GET', undefined, from);
			expect(res.status, from).toBe(429);
		}
		expect((await send('/api/conversations', { Cookie: `sophos_session=${id}` })).status).toBe(200);
	});
});

describe('sessions and a new SOPHOS_TOKEN', () => {
	it('ends every session when the token changes', async () => {
		const ollama = await ScriptedOllama.start(answerScript('Hi.'));
		let service = await Service.start({ ollamaUrl: ollama.url, env: { SOPHOS_TOKEN: TOKEN } });
		try {
			const res = await rawRequest(`${service.url}/api/session`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ token: TOKEN })
			});
			const cookie = { Cookie: res.headers['set-cookie']![0]!.split(';')[0]! };
			expect((await rawRequest(`${service.url}/api/conversations`, { headers: cookie })).status).toBe(200);
			await service.stop();
			service = await service.restart({ SOPHOS_TOKEN: `${TOKEN}-rotated` });
			expect((await rawRequest(`${service.url}/api/conversations`, { headers: cookie })).status).toBe(401);
		} finally {
			await service.stop();
			await ollama.close();
		}
	});
});
