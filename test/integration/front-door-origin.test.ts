import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service, serviceState } from '../support/service';
import { followRun } from '../support/sse';

const ALLOWED = 'https://app.example.com';

/**
 * Issue 13, no-cors POSTs: a page elsewhere cannot read our answers, but without this check it
 * could still cancel a run, delete a conversation or start one. Every state-changing route refuses
 * every foreign origin, whatever the content type or the lack of a body, and nothing changes.
 */
describe('Origin and fetch metadata on every state-changing route', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let done: string;
	let live: string;
	let liveRun: string;
	let before: string;

	const state = () => serviceState(service, [done, live]);

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('Finished.'));
		service = await Service.start({ ollamaUrl: ollama.url, env: { ALLOWED_ORIGINS: ALLOWED } });
		done = (await (await service.post('/api/chat', { message: 'keep me' })).json()).conversation;
		await followRun(service.url, done);
		ollama.script = answerScript('A long answer that is held halfway.', { hold: 'live', holdAfterChunks: 2 });
		({ conversation: live, run: liveRun } = await (await service.post('/api/chat', { message: 'keep running' })).json());
		await ollama.held('live');
		before = await state();
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	const routes = (): [string, string, string | undefined][] => [
		['POST', '/api/chat', JSON.stringify({ message: 'started from elsewhere' })],
		['POST', '/api/chat', JSON.stringify({ conversation: live, message: 'take over', ifBusy: 'interrupt' })],
		['POST', '/api/chat', JSON.stringify({ conversation: live, message: 'later', ifBusy: 'enqueue' })],
		['POST', '/api/chat', JSON.stringify({ conversation: live, cancel: true })],
		['POST', `/api/runs/${liveRun}/cancel`, undefined],
		['POST', `/api/runs/${liveRun}/cancel`, '{}'],
		['DELETE', `/api/conversations/${done}`, undefined],
		['DELETE', '/api/allowed-tools/memory__read_graph', undefined],
		['POST', '/api/chat', JSON.stringify({ conversation: live, decisions: [{ toolCallId: 'call_1', action: 'approve' }] })],
		['POST', '/api/session', JSON.stringify({ token: 'guess-guess-guess-guess' })],
		['PUT', `/api/conversations/${done}`, '{}'],
		['PATCH', `/api/conversations/${done}`, '{}']
	];

	const origins = (): [string, Record<string, string>][] => [
		['another site', { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }],
		['another site, no fetch metadata', { Origin: 'https://evil.example' }],
		['another port of loopback', { Origin: 'http://127.0.0.1:5555', 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'no-cors' }],
		['a sandboxed frame', { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' }],
		['a look-alike of the allowed origin', { Origin: `${ALLOWED}.evil.example`, 'Sec-Fetch-Site': 'cross-site' }],
		['the allowed origin over http', { Origin: 'http://app.example.com', 'Sec-Fetch-Site': 'cross-site' }],
		['cross-site, Origin stripped', { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }]
	];

	const contentTypes = [undefined, 'text/plain', 'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'];

	it('refuses every foreign origin on every route, for every content type, with 403', async () => {
		let count = 0;
		for (const [who, headers] of origins()) {
			for (const [method, path, body] of routes()) {
				for (const type of contentTypes) {
					const res = await rawRequest(service.url + path, {
						method,
						headers: { ...headers, ...(type ? { 'Content-Type': type } : {}) },
						body
					});
					const what = `${method} ${path} from ${who} as ${type ?? 'no type'}`;
					expect(res.status, what).toBe(403);
					// SvelteKit refuses cross-site forms (text/plain included) itself, before our check.
					if (!/form|text\/plain/.test(type ?? '')) {
						expect(JSON.parse(res.body).error.code, what).toBe('ORIGIN_NOT_ALLOWED');
						expect(JSON.parse(res.body).error.message, what).toMatch(/ALLOWED_ORIGINS/);
					}
					count++;
				}
			}
		}
		expect(count).toBe(origins().length * routes().length * contentTypes.length);
		expect(await state()).toBe(before);
		expect((await (await service.fetch(`/api/conversations/${live}`)).json()).conversation.status).toBe('running');
	});

	it('lets the page itself, clients without Origin, and ALLOWED_ORIGINS through', async () => {
		ollama.script = answerScript('Finished.');
		const own = `http://127.0.0.1:${service.port}`;
		const start = (headers: Record<string, string>) =>
			rawRequest(`${service.url}/api/chat`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json', ...headers },
				body: JSON.stringify({ message: 'hello' })
			});
		const cases: Record<string, string>[] = [{ Origin: own, 'Sec-Fetch-Site': 'same-origin' }, {}, { Origin: ALLOWED, 'Sec-Fetch-Site': 'cross-site' }];
		for (const headers of cases) {
			const res = await start(headers);
			expect(res.status, JSON.stringify(headers)).toBe(200);
			await followRun(service.url, JSON.parse(res.body).conversation);
		}
		ollama.release('live');
		await followRun(service.url, live);
		const { runs } = await (await service.fetch(`/api/conversations/${live}/runs`)).json();
		expect(runs).toEqual([expect.objectContaining({ id: liveRun, status: 'completed' })]);
	});
});
