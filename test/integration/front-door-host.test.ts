import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service, serviceState } from '../support/service';
import { followRun } from '../support/sse';

const SECRET = 'The launch code is 0000';

/**
 * Issue 13, DNS rebinding: a page whose own name now resolves to 127.0.0.1 reaches the service,
 * but its requests carry its own name as Host. Every route refuses every such Host before it runs:
 * nothing of the conversation is in any answer, and nothing is started, cancelled or deleted.
 */
describe('Host allow-list, through every route', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let conversation: string;
	let run: string;
	let before: string;

	const state = () => serviceState(service, [conversation]);

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('Noted.'));
		service = await Service.start({ ollamaUrl: ollama.url });
		({ conversation, run } = await (await service.post('/api/chat', { message: SECRET })).json());
		await followRun(service.url, conversation);
		before = await state();
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	const json = { 'Content-Type': 'application/json' };
	const routes = (): [string, string, string?][] => [
		['GET', '/'],
		['GET', `/?c=${conversation}`],
		['GET', '/api/healthz'],
		['GET', '/api/readyz'],
		['GET', '/api/conversations'],
		['GET', '/api/conversations?limit=5'],
		['GET', `/api/conversations/${conversation}`],
		['GET', `/api/conversations/${conversation}/runs`],
		['GET', `/api/conversations/${conversation}/export`],
		['GET', `/api/conversations/${conversation}/export?format=jsonl`],
		['GET', `/api/chat?conversation=${conversation}`],
		['POST', '/api/chat', JSON.stringify({ message: 'exfiltrate' })],
		['POST', '/api/chat', JSON.stringify({ conversation, message: 'more' })],
		['POST', '/api/chat', JSON.stringify({ conversation, resume: true })],
		['POST', '/api/chat', JSON.stringify({ conversation, cancel: true })],
		['POST', `/api/runs/${run}/cancel`],
		['DELETE', `/api/conversations/${conversation}`],
		['POST', '/api/chat', JSON.stringify({ conversation, decisions: [{ toolCallId: 'call_1', action: 'approve' }] })],
		['GET', '/api/allowed-tools'],
		['DELETE', '/api/allowed-tools/memory__read_graph'],
		['POST', '/api/session', JSON.stringify({ token: 'guess-guess-guess-guess' })],
		['GET', '/api/no-such-route']
	];

	const hostile = () => {
		const port = service.port;
		return [
			'evil.example',
			`evil.example:${port}`,
			`localhost.evil.example:${port}`,
			`127.0.0.1.nip.io:${port}`,
			`127.0.0.1.nip.io`,
			`www.127.0.0.1.nip.io:${port}`,
			`localhost.:${port}`,
			`LOCALHOST.EVIL.EXAMPLE:${port}`,
			`127.1:${port}`,
			`2130706433:${port}`,
			`0x7f000001:${port}`,
			`0177.0.0.1:${port}`,
			`[::ffff:127.0.0.1]:${port}`,
			`0.0.0.0:${port}`,
			`192.168.1.10:${port}`,
			`sophos.lan:${port}`
		];
	};

	it('refuses every hostile Host on every route with 421 and a message naming ALLOWED_HOSTS', async () => {
		const answers: string[] = [];
		for (const host of hostile()) {
			for (const [method, path, body] of routes()) {
				const res = await rawRequest(service.url + path, { method, headers: { Host: host, ...(body ? json : {}) }, body });
				answers.push(`${res.status} ${method} ${path} Host: ${host}`);
				expect(res.status, `${method} ${path} Host: ${host}`).toBe(421);
				expect(JSON.parse(res.body).error).toEqual({
					code: 'HOST_NOT_ALLOWED',
					message: `Host ${JSON.stringify(host)} is not served: Sophos answers loopback names and ALLOWED_HOSTS only`
				});
				expect(res.body).not.toContain(SECRET);
				expect(res.body).not.toContain(conversation);
			}
		}
		expect(answers).toHaveLength(hostile().length * routes().length);
		expect(await state()).toBe(before);
	});

	it('refuses a request without a Host, or with one no URL can hold (Node and adapter-node answer 400 first)', async () => {
		const missing = await rawRequest(`${service.url}/api/conversations`, { omitHost: true });
		expect(missing.status).toBe(400);
		expect(missing.body).not.toContain(SECRET);
		for (const host of [`localhost:${service.port}.evil.example`, `localhost:${service.port}@evil.example`, 'local host']) {
			for (const [method, path, body] of routes()) {
				const res = await rawRequest(service.url + path, { method, headers: { Host: host, ...(body ? json : {}) }, body });
				expect([400, 421], `${method} ${path} Host: ${host}`).toContain(res.status);
				expect(res.body).not.toContain(SECRET);
			}
		}
		expect(await state()).toBe(before);
	});

	it('answers the loopback names, with any spelling of the port', async () => {
		for (const host of [`127.0.0.1:${service.port}`, `localhost:${service.port}`, `LocalHost:${service.port}`, `[::1]:${service.port}`, '127.0.0.1', '127.0.0.2:1']) {
			const res = await rawRequest(`${service.url}/api/conversations/${conversation}`, { headers: { Host: host } });
			expect(res.status, host).toBe(200);
			expect(res.body).toContain(SECRET);
		}
	});

	it('sends nosniff, no-store on the API, a referrer policy and keeps the CSP', async () => {
		const api = await service.fetch('/api/conversations');
		const sse = await service.fetch(`/api/chat?conversation=${conversation}`);
		const md = await service.fetch(`/api/conversations/${conversation}/export`);
		const page = await service.fetch('/');
		for (const res of [api, sse, md, page]) {
			expect(res.headers.get('x-content-type-options')).toBe('nosniff');
			expect(res.headers.get('referrer-policy')).toBe('no-referrer');
			expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
			await res.arrayBuffer();
		}
		expect(api.headers.get('cache-control')).toBe('no-store');
		expect(md.headers.get('cache-control')).toBe('no-store');
		expect(sse.headers.get('cache-control')).toBe('no-store, no-cache, no-transform');
		expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
		expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'.*frame-ancestors 'none'/);
		const refused = await rawRequest(`${service.url}/api/conversations`, { headers: { Host: 'evil.example' } });
		expect(refused.headers['x-content-type-options']).toBe('nosniff');
		expect(refused.headers['cache-control']).toBe('no-store');
	});
});
