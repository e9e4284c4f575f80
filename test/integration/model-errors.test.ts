import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { ScriptedOpenAI } from '../support/scripted-openai';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun, readEvents, type SseEvent } from '../support/sse';

/** What a run that failed left: its last event, its run record and the conversation. */
async function outcomeOf(service: Service, conversation: string, run: string, events: SseEvent[]) {
	const runs = (await (await service.fetch(`/api/conversations/${conversation}/runs`)).json()).runs;
	const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
	return { conversation, run, last: events.at(-1)!, record: runs[0], detail };
}

// A call that fails at once can end the run before the test follows it, and the stream then says
// only how it ended: the call is held until the stream is open, so its chat-error is seen live.
let holds = 0;
async function failedRun(model: ScriptedOllama | ScriptedOpenAI, service: Service, message: string) {
	const hold = `failure-${++holds}`;
	model.holdNext = hold;
	const { conversation, run } = await (await service.post('/api/chat', { message })).json();
	await model.held(hold);
	const stream = await service.fetch(`/api/chat?conversation=${conversation}`);
	model.release(hold);
	return outcomeOf(service, conversation, run, await readEvents(stream));
}

/**
 * A model server that takes the connection and then goes away: the client's call is in flight
 * (so the test can follow the run) until `vanish()` resets it and stops listening.
 */
async function vanishingServer() {
	const sockets: net.Socket[] = [];
	let connected!: () => void;
	const called = new Promise<void>((resolve) => (connected = resolve));
	const server = net.createServer((socket) => {
		sockets.push(socket);
		connected();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
		called,
		vanish: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				for (const socket of sockets) socket.resetAndDestroy();
			})
	};
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
			const { conversation, run, last, record, detail } = await failedRun(ollama, service, 'hi');
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
		const { last, record } = await failedRun(ollama, service, 'loop forever');
		expect(last).toMatchObject({ event: 'chat-error', data: { code: 'RECURSION_LIMIT' } });
		expect(record.error.code).toBe('RECURSION_LIMIT');
		expect(ollama.requests.at(-1)!.messages.filter((m) => m.role === 'tool').length).toBeLessThan(4);
	});

	it('any other model error: AGENT_FAILURE with its message', async () => {
		ollama.script = () => ({ httpError: { status: 500, error: 'llama runner process has terminated' } });
		const { last, record } = await failedRun(ollama, service, 'boom');
		expect(last).toMatchObject({ event: 'chat-error', data: { code: 'AGENT_FAILURE' } });
		expect(record.error.message).toContain('llama runner process has terminated');
	});
});

describe('an unreachable model', () => {
	it('is MODEL_UNREACHABLE, and readyz says so', async () => {
		const gone = await vanishingServer();
		const url = gone.url;
		const service = await Service.start({ ollamaUrl: url });
		try {
			const { conversation, run } = await (await service.post('/api/chat', { message: 'hello?' })).json();
			await gone.called;
			const stream = await service.fetch(`/api/chat?conversation=${conversation}`);
			await gone.vanish();
			const { last, record } = await outcomeOf(service, conversation, run, await readEvents(stream));
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

/** The same classes from an OpenAI-compatible server, told apart by the client's error type and the HTTP status. */
describe('model failures from an OpenAI-compatible server', () => {
	let openai: ScriptedOpenAI;
	let service: Service;

	beforeAll(async () => {
		openai = await ScriptedOpenAI.start(answerScript('ok'), { apiKey: 'right-key' });
		// Every readyz here must check afresh: the test changes the server between two of them.
		service = await Service.start({ env: { ...openai.serviceEnv(), READINESS_CACHE_MS: '0' } });
	});
	afterAll(async () => {
		await service.stop();
		await openai.close();
	});

	const readyz = async () => {
		const res = await service.fetch('/api/readyz');
		return { status: res.status, body: await res.json() };
	};

	it('a key the server refuses: MODEL_AUTH_FAILED, naming the setting, and readyz says so', async () => {
		expect((await readyz()).status).toBe(200);
		openai.apiKey = 'rotated-key';
		try {
			const { last, record, detail } = await failedRun(openai, service, 'hi');
			expect(last).toMatchObject({ event: 'chat-error', data: { code: 'MODEL_AUTH_FAILED' } });
			expect((last.data as { message: string }).message).toContain('set OPENAI_API_KEY');
			expect(record.error.code).toBe('MODEL_AUTH_FAILED');
			expect(detail.resumable).toBe(true);
			const ready = await readyz();
			expect(ready.status).toBe(503);
			expect(ready.body.checks.model).toMatchObject({ status: 'error', message: expect.stringContaining('refused the API key') });
			expect(ready.body.checks.providers.openai).toMatchObject({ status: 'error', kind: 'openai' });
		} finally {
			openai.apiKey = 'right-key';
		}
	});

	it('a model the server does not serve: MODEL_UNAVAILABLE, resumable once it is loaded', async () => {
		openai.models = ['another-model'];
		try {
			const { conversation, last, record } = await failedRun(openai, service, 'hi');
			expect(last).toMatchObject({ event: 'chat-error', data: { code: 'MODEL_UNAVAILABLE' } });
			expect((last.data as { message: string }).message).toContain('"qwen3-8b" is not available on "openai"');
			expect(record.error.code).toBe('MODEL_UNAVAILABLE');
			expect((await readyz()).body.message).toContain('The model "qwen3-8b" is not served by "openai"');
			openai.models = ['qwen3-8b'];
			expect((await service.post('/api/chat', { conversation, resume: true })).status).toBe(200);
			expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
		} finally {
			openai.models = ['qwen3-8b'];
		}
	});

	it('a rate limit: MODEL_RATE_LIMITED with the Retry-After; out of quota says so', async () => {
		openai.script = () => ({ httpError: { status: 429, error: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded', retryAfter: '7' } });
		const limited = await failedRun(openai, service, 'hi');
		expect(limited.last).toMatchObject({ event: 'chat-error', data: { code: 'MODEL_RATE_LIMITED' } });
		expect((limited.last.data as { message: string }).message).toContain('retry after 7 s');
		openai.script = () => ({ httpError: { status: 429, error: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } });
		const quota = await failedRun(openai, service, 'hi');
		expect(quota.record.error).toMatchObject({ code: 'MODEL_RATE_LIMITED', message: expect.stringContaining('out of quota') });
	});

	it('any other failure: AGENT_FAILURE with the server message and the tool-call advice', async () => {
		openai.script = () => ({ httpError: { status: 500, error: 'tools param requires --jinja flag' } });
		const { last, record } = await failedRun(openai, service, 'boom');
		expect(last).toMatchObject({ event: 'chat-error', data: { code: 'AGENT_FAILURE' } });
		expect(record.error.message).toContain('500: tools param requires --jinja flag');
		expect(record.error.message).toContain('--enable-auto-tool-choice');
		openai.script = answerScript('ok');
	});

	it('a server that is gone: MODEL_UNREACHABLE naming its address, and readyz names it', async () => {
		const gone = await ScriptedOpenAI.start(answerScript('never'));
		const url = gone.url;
		await gone.close();
		const down = await Service.start({ env: { OPENAI_BASE_URL: url, DEFAULT_MODEL: 'openai/qwen3-8b' } });
		try {
			// Nothing to hold here: the run may end before the stream is followed, so its record says it.
			const { conversation, run } = await (await down.post('/api/chat', { message: 'hello?' })).json();
			const { record } = await outcomeOf(down, conversation, run, await followRun(down.url, conversation));
			expect(record.error).toMatchObject({ code: 'MODEL_UNREACHABLE', message: expect.stringContaining(`not reachable at ${url}`) });
			const ready = await down.fetch('/api/readyz');
			expect(ready.status).toBe(503);
			const body = await ready.json();
			expect(body.message).toContain(`The model server "openai" is not reachable at ${url}`);
			expect(Object.keys(body.checks.providers)).toEqual(['openai']);
		} finally {
			await down.stop();
		}
	});
});
