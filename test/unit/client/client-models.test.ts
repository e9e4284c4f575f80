import { beforeEach, describe, expect, it } from 'vitest';
import { ChatController } from '../../../src/lib/client/chat-controller';
import { chatView } from '../../../src/lib/client/chat-view';
import { modelOptions, modelToSend } from '../../../src/lib/client/model-choice';
import { readinessAdvice } from '../../../src/lib/client/readiness-advice';
import { runUsageLine, usageLine } from '../../../src/lib/client/usage-format';
import type { MessageDto } from '../../../src/lib/protocol';
import { FakeApi, FakeStreams, MODELS, READY, detail, ev, ok, settle, summary } from '../../support/client-fakes';

const USER: MessageDto = { id: 'u1', role: 'user', content: 'hello' };

describe('the usage lines', () => {
	it('say model · tokens · tok/s · time to first token, with only the figures there are', () => {
		expect(usageLine('openai/qwen3-8b', { inputTokens: 1234, outputTokens: 56, tokensPerSecond: 41.26, firstTokenMs: 180.4, durationMs: 1500 })).toBe(
			'openai/qwen3-8b · 1,234 → 56 tokens · 41.3 tok/s · first token 180 ms'
		);
		expect(usageLine('ollama/qwen3', { outputTokens: 9, tokensPerSecond: 5714.3, firstTokenMs: 1250 })).toBe('ollama/qwen3 · 9 tokens out · 5714 tok/s · first token 1.3 s');
		expect(usageLine('ollama/qwen3', undefined)).toBe('ollama/qwen3');
		expect(usageLine(undefined, undefined)).toBe('');
	});

	it("sum a run's calls", () => {
		expect(runUsageLine({ calls: 4, inputTokens: 2400, outputTokens: 96, durationMs: 3140 })).toBe('4 model calls · 2,400 → 96 tokens · 3.1 s');
		expect(runUsageLine({ calls: 1, inputTokens: 20, outputTokens: 9, durationMs: 12 })).toBe('1 model call · 20 → 9 tokens · 12 ms');
		expect(runUsageLine({ calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 })).toBe('No model calls recorded');
	});
});

describe('the model picker', () => {
	it('offers the listed models, and keeps a chosen one whose provider did not answer', () => {
		expect(modelOptions(MODELS, 'openai/qwen3-8b').map((o) => o.id)).toEqual(['ollama/qwen3', 'openai/qwen3-8b']);
		expect(modelOptions(MODELS, 'vllm/gone')[0]).toEqual({ id: 'vllm/gone', label: 'vllm/gone (not available now)', available: false });
		expect(modelOptions(null, null)).toEqual([]);
	});

	it('sends a model only when it differs from what the conversation uses', () => {
		expect(modelToSend('ollama/qwen3', null, MODELS)).toBeUndefined();
		expect(modelToSend('openai/qwen3-8b', null, MODELS)).toBe('openai/qwen3-8b');
		expect(modelToSend('openai/qwen3-8b', summary('c1', { model: 'openai/qwen3-8b' }), MODELS)).toBeUndefined();
		// A conversation from before models were chosen uses the default.
		expect(modelToSend('ollama/qwen3', summary('c1', { model: null }), MODELS)).toBeUndefined();
		expect(modelToSend('ollama/qwen3', summary('c1', { model: 'openai/qwen3-8b' }), MODELS)).toBe('ollama/qwen3');
	});
});

describe('ChatController and models', () => {
	let api: FakeApi;
	let streams: FakeStreams;
	let chat: ChatController;
	beforeEach(() => {
		api = new FakeApi();
		streams = new FakeStreams();
		chat = new ChatController({ api, openStream: streams.open });
	});

	it("shows each conversation's own model, the default for a new chat, and sends a new choice once", async () => {
		api.conversations = [summary('c1', { model: 'openai/qwen3-8b' })];
		api.details.set('c1', detail('c1', [USER], { model: 'openai/qwen3-8b' }));
		await chat.start(null);
		expect(chat.snapshot.modelChoice).toBe('openai/qwen3-8b');
		expect(chatView(chat.snapshot).models.map((o) => o.id)).toEqual(['ollama/qwen3', 'openai/qwen3-8b']);

		await chat.send('same model');
		expect(api.calls.startRun.at(-1)![0]).toEqual({ message: 'same model', conversation: 'c1' });
		streams.emit(ev.end(1));
		await settle();

		chat.chooseModel('ollama/qwen3');
		await chat.send('switch');
		expect(api.calls.startRun.at(-1)![0]).toEqual({ message: 'switch', conversation: 'c1', model: 'ollama/qwen3' });
		streams.emit(ev.end(2));
		await settle();

		chat.newChat();
		expect(chat.snapshot.modelChoice).toBe('ollama/qwen3');
		chat.chooseModel('openai/qwen3-8b');
		await chat.send('new one');
		expect(api.calls.startRun.at(-1)![0]).toEqual({ message: 'new one', conversation: null, model: 'openai/qwen3-8b' });
	});

	it("loads the ended run's totals for the timeline", async () => {
		api.details.set('c1', detail('c1', [USER]));
		api.answers.listRuns = () =>
			ok([{ id: 'run-1', status: 'completed', trigger: 'message', input: 'x', error: null, startedAt: '', finishedAt: '', usage: { calls: 2, inputTokens: 40, outputTokens: 7, durationMs: 90 } }]);
		await chat.select('c1');
		await chat.send('go');
		expect(chatView(chat.snapshot).runUsage).toBeNull();
		streams.emit(ev.end(1));
		await settle();
		expect(chatView(chat.snapshot).runUsage).toEqual({ calls: 2, inputTokens: 40, outputTokens: 7, durationMs: 90 });
	});
});

describe('readiness advice by provider', () => {
	it('tells how to start the kind of server that is down', () => {
		const advice = readinessAdvice({
			...READY,
			status: 'error',
			defaultModel: 'openai/qwen3-8b',
			checks: {
				...READY.checks,
				model: { status: 'error', message: 'The model server "openai" is not reachable' },
				providers: {
					openai: { status: 'error', kind: 'openai', message: 'The model server "openai" is not reachable' },
					ollama: { status: 'error', kind: 'ollama', message: 'Ollama is not reachable' }
				}
			}
		});
		expect(advice.map((a) => a.key)).toEqual(['model', 'provider:ollama']);
		expect(advice[0]!.fix).toContain('--jinja');
		expect(advice[0]!.fix).toContain('--enable-auto-tool-choice');
		expect(advice[1]!.fix).toContain('ollama serve');
		expect(advice[1]!.title).toContain('Model server "ollama" is down');
	});
});
