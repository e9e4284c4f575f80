import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun } from '../support/sse';

/** One active run per conversation, whatever the mix of concurrent requests. */
describe('concurrent starts on one conversation', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let conversation: string;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('First answer.'));
		service = await Service.start({ ollamaUrl: ollama.url });
		conversation = (await (await service.post('/api/chat', { message: 'first' })).json()).conversation;
		await followRun(service.url, conversation);
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	async function race(bodies: object[]) {
		const responses = await Promise.all(bodies.map((b) => service.post('/api/chat', b)));
		return Promise.all(responses.map(async (r) => ({ status: r.status, body: await r.json() })));
	}

	it('two new messages: exactly one 200 and one 409 SESSION_IN_PROGRESS', async () => {
		ollama.script = answerScript('Held answer.', { hold: 'two-messages', holdAfterChunks: 1 });
		const results = await race([
			{ conversation, message: 'a' },
			{ conversation, message: 'b' }
		]);
		expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
		expect(results.find((r) => r.status === 409)!.body.error.code).toBe('SESSION_IN_PROGRESS');
		await ollama.held('two-messages');
		// While it runs, every further start is refused too, and delete is refused.
		expect((await service.post('/api/chat', { conversation, message: 'c' })).status).toBe(409);
		expect((await service.fetch(`/api/conversations/${conversation}`, { method: 'DELETE' })).status).toBe(409);
		const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
		expect(detail.resumable).toBe(false);
		expect(detail.conversation.status).toBe('running');
		ollama.release('two-messages');
		const events = await followRun(service.url, conversation);
		expect(events.at(-1)?.event).toBe('end');
		const { runs } = await (await service.fetch(`/api/conversations/${conversation}/runs`)).json();
		expect(runs.map((r: { status: string }) => r.status)).toEqual(['completed', 'completed']);
	});

	it('two resumes of an interrupted thread: exactly one 200 and one 409', async () => {
		ollama.script = answerScript('Interrupted answer.', { hold: 'to-interrupt', holdAfterChunks: 1 });
		await service.post('/api/chat', { conversation, message: 'this one will be cut' });
		await ollama.held('to-interrupt');
		await service.kill();
		ollama.release('to-interrupt');
		service = await service.restart();

		ollama.script = answerScript('Resumed answer.', { hold: 'resumed', holdAfterChunks: 1 });
		const results = await race([
			{ conversation, resume: true },
			{ conversation, resume: true },
			{ conversation, message: 'and a message at the same time' }
		]);
		expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
		expect(results.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual([
			'SESSION_IN_PROGRESS',
			'SESSION_IN_PROGRESS'
		]);
		await ollama.held('resumed');
		ollama.release('resumed');
		expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
		const { runs } = await (await service.fetch(`/api/conversations/${conversation}/runs`)).json();
		expect(runs.filter((r: { status: string }) => r.status === 'running')).toEqual([]);
		expect(runs).toHaveLength(4);
	});

	it('many new conversations at once each get their own run', async () => {
		ollama.script = answerScript('Quick.');
		const results = await race(Array.from({ length: 20 }, (_, i) => ({ message: `parallel ${i}` })));
		expect(results.every((r) => r.status === 200)).toBe(true);
		expect(new Set(results.map((r) => r.body.conversation)).size).toBe(20);
		await Promise.all(results.map((r) => followRun(service.url, r.body.conversation)));
		const { conversations } = await (await service.fetch('/api/conversations')).json();
		const ours = conversations.filter((c: { title: string }) => c.title.startsWith('parallel '));
		expect(ours).toHaveLength(20);
		expect(ours.every((c: { status: string; messageCount: number }) => c.status === 'completed' && c.messageCount === 2)).toBe(true);
	});
});
