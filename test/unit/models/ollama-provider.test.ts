import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaProvider } from '../../../src/lib/server/models/ollama-provider';
import { ScriptedOllama } from '../../support/scripted-ollama';

describe('OllamaProvider', () => {
	let ollama: ScriptedOllama;
	let provider: OllamaProvider;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(() => ({ content: 'Hello there.' }), ['qwen3:latest', 'llama3.2:3b']);
		provider = new OllamaProvider({ host: ollama.url, think: false, fetch });
	});
	afterAll(() => ollama.close());

	it('lists models as a person names them, without :latest', async () => {
		const listed = await provider.listModels();
		expect(listed).toEqual(['qwen3', 'llama3.2:3b']);
		expect(provider.serves(listed, 'qwen3')).toBe(true);
		expect(provider.serves(listed, 'qwen3:latest')).toBe(true);
		expect(provider.serves(listed, 'llama3.2')).toBe(false);
	});

	it("reads the call's usage from Ollama's own eval counts and durations", async () => {
		const answer = await provider.chatModel('qwen3').invoke([new HumanMessage('hi')]);
		// The scripted server: 10 prompt tokens a message; eval 0.7 ms for 3 content chunks and the last one.
		expect(provider.usageOf(answer)).toEqual({
			inputTokens: 10,
			outputTokens: 4,
			firstTokenMs: 0.3,
			durationMs: 1,
			tokensPerSecond: 5714.3
		});
		expect(provider.usageOf(new AIMessage('no figures'))).toBeUndefined();
	});

	it('classifies by the HTTP status the client carries and the errno, never the wording', () => {
		const status = (code: number) => Object.assign(new Error('whatever the server said'), { status_code: code });
		expect(provider.classifyError(status(404), 'qwen3')).toMatchObject({ code: 'MODEL_UNAVAILABLE', message: expect.stringContaining('ollama pull qwen3') });
		expect(provider.classifyError(status(401), 'qwen3').code).toBe('MODEL_AUTH_FAILED');
		expect(provider.classifyError(status(429), 'qwen3').code).toBe('MODEL_RATE_LIMITED');
		expect(provider.classifyError(status(500), 'qwen3')).toMatchObject({ code: 'AGENT_FAILURE', message: expect.stringContaining('whatever the server said') });
		const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }) });
		expect(provider.classifyError(reset, 'qwen3')).toMatchObject({ code: 'MODEL_UNREACHABLE', message: expect.stringContaining('(ECONNRESET)') });
		// "fetch failed" alone is wording, not a type: without an errno it is not called unreachable.
		expect(provider.classifyError(new TypeError('fetch failed'), 'qwen3').code).toBe('AGENT_FAILURE');
	});

	it('says Ollama is not reachable, and how to start it, when listing fails', async () => {
		const gone = await ScriptedOllama.start(() => ({ content: 'never' }));
		const url = gone.url;
		await gone.close();
		await expect(new OllamaProvider({ host: url, think: false, fetch }).listModels()).rejects.toMatchObject({
			code: 'MODEL_UNREACHABLE',
			message: `Ollama is not reachable at ${url} (ECONNREFUSED): start it with \`ollama serve\``
		});
	});
});
