import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun } from '../support/sse';

async function failedRun(service: Service, message: string) {
	const { conversation, run } = await (await service.post('/api/chat', { message })).json();
	const events = await followRun(service.url, conversation);
	const runs = (await (await service.fetch(`/api/conversations/${conversation}/runs`)).json()).runs;
	const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
	return { conversation, run, last: events.at(-1)!, record: runs[0], detail };
}

/** Model failures are told apart, recorded on the run and announced by one `chat-error`. */
describe('model failures', () => {
	let ollama: ScriptedOllama;
	let service: Service;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('ok'));
		service = await Service.start({ ollamaUrl: ollama.url, env: { AGENT_RECURSION_LIMIT: '4' } });
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	it('a model that is not pulled: MODEL_UNAVAILABLE', async () => {
		ollama.models = ['llama3:latest'];
		try {
			const { conversation, run, last, record, detail } = await failedRun(service, 'hi');
			expect(last).toMatchObject({ event: 'chat-error', data: { code: 'MODEL_UNAVAILABLE', conversation, run } });
			expect((last.data as { message: string }).message).toContain('ollama pull qwen3');
			expect(record).toMatchObject({ status: 'failed', error: { code: 'MODEL_UNAVAILABLE' } });
			expect(detail.conversation.error.code).toBe('MODEL_UNAVAILABLE');
			// The user message is saved and the agent step is pending: the run can be resumed once fixed.
			expect(detail.messages.map((m: { role: string }) => m.role)).toEqual(['user']);
			expect(detail.resumable).toBe(true);
			ollama.models = ['qwen3:latest'];
			expect((await service.post('/api/chat', { conversation, resume: true })).status).toBe(200);
			expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
		} finally {
			ollama.models = ['qwen3:latest'];
		}
	});

	it('a tool loop past AGENT_RECURSION_LIMIT: RECURSION_LIMIT', async () => {
		ollama.script = () => ({ toolCalls: [{ name: 'memory__read_graph', arguments: {} }] });
		const { last, record } = await failedRun(service, 'loop forever');
		expect(last).toMatchObject({ event: 'chat-error', data: { code: 'RECURSION_LIMIT' } });
		expect(record.error.code).toBe('RECURSION_LIMIT');
		expect(ollama.requests.at(-1)!.messages.filter((m) => m.role === 'tool').length).toBeLessThan(4);
	});

	it('any other model error: AGENT_FAILURE with its message', async () => {
		ollama.script = () => ({ httpError: { status: 500, error: 'llama runner process has terminated' } });
		const { last, record } = await failedRun(service, 'boom');
		expect(last).toMatchObject({ event: 'chat-error', data: { code: 'AGENT_FAILURE' } });
		expect(record.error.message).toContain('llama runner process has terminated');
	});
});

describe('an unreachable model', () => {
	it('is MODEL_UNREACHABLE, and readyz says so', async () => {
		const gone = await ScriptedOllama.start(answerScript('never'));
		const url = gone.url;
		await gone.close();
		const service = await Service.start({ ollamaUrl: url });
		try {
			const { last, record } = await failedRun(service, 'hello?');
			expect(last).toMatchObject({ event: 'chat-error', data: { code: 'MODEL_UNREACHABLE' } });
			expect((last.data as { message: string }).message).toContain(url);
			expect(record.error.code).toBe('MODEL_UNREACHABLE');
			const ready = await service.fetch('/api/readyz');
			expect(ready.status).toBe(503);
			const body = await ready.json();
			expect(body.checks.model.status).toBe('error');
			expect(body.message).toContain(`Ollama is not reachable at ${url}`);
			expect(body.checks.database.status).toBe('ok');
		} finally {
			await service.stop();
		}
	});
});
