import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { BaseCallbackHandler, type HandleLLMNewTokenCallbackFields, type NewTokenIndices } from '@langchain/core/callbacks/base';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { Runnable } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordModelCall } from '../../../src/lib/server/models/model-call';
import { OpenAIProvider } from '../../../src/lib/server/models/openai-provider';
import { ScriptedOpenAI } from '../../support/scripted-openai';
import { reasoningOf } from '../../../src/lib/server/models/model-call';

/** Streams like LangGraph's `messages` mode does: a handler that prefers streaming, every chunk kept. */
class Chunks extends BaseCallbackHandler {
	name = 'chunks';
	lc_prefer_streaming = true;
	readonly chunks: AIMessageChunk[] = [];
	override handleLLMNewToken(_t: string, _i: NewTokenIndices, _r: string, _p?: string, _tags?: string[], fields?: HandleLLMNewTokenCallbackFields) {
		const message = (fields?.chunk as { message?: AIMessageChunk } | undefined)?.message;
		if (message) this.chunks.push(message);
	}
}

async function call(model: Runnable<BaseLanguageModelInput, AIMessageChunk>, messages: BaseMessage[]) {
	const handler = new Chunks();
	const answer = (await model.invoke(messages, { callbacks: [handler] })) as AIMessage;
	return { answer, chunks: handler.chunks };
}

const readGraph = tool(async () => '{}', { name: 'memory__read_graph', description: 'Reads the graph.', schema: z.object({ query: z.string() }) });

describe('OpenAIProvider through the real ChatOpenAI client', () => {
	let server: ScriptedOpenAI;
	let provider: OpenAIProvider;
	const endpoint = (url: string, apiKey?: string) => ({
		name: 'openai',
		baseUrl: url,
		...(apiKey ? { apiKey } : {}),
		urlSetting: 'OPENAI_BASE_URL',
		keySetting: 'OPENAI_API_KEY'
	});

	beforeAll(async () => {
		server = await ScriptedOpenAI.start(() => ({ content: 'ok' }));
		provider = new OpenAIProvider(endpoint(server.url), fetch);
	});
	afterAll(() => server.close());

	it.each(['reasoning_content', 'reasoning'] as const)('streams reasoning sent as %s, text and a tool call split across chunks', async (field) => {
		server.reasoningField = field;
		const query = 'the whole graph, please, in full detail';
		server.script = () => ({ thinking: 'Look first.', content: 'Looking.', toolCalls: [{ name: 'memory__read_graph', arguments: { query } }] });
		const { answer, chunks } = await call(provider.chatModel('qwen3-8b').bindTools!([readGraph]), [new HumanMessage('what do you know?')]);
		expect(chunks.map((c) => reasoningOf(c)).join('')).toBe('Look first.');
		expect(reasoningOf(answer)).toBe('Look first.');
		expect(answer.content).toBe('Looking.');
		// The arguments came in several deltas of one index; the client joined them into one call.
		expect(chunks.filter((c) => (c.tool_call_chunks?.length ?? 0) > 0).length).toBeGreaterThan(2);
		expect(answer.tool_calls).toEqual([expect.objectContaining({ name: 'memory__read_graph', args: { query } })]);
		const request = server.requests.at(-1)!;
		expect(request.stream).toBe(true);
		expect(request.stream_options).toEqual({ include_usage: true });
		expect(request.tools?.map((t) => t.function.name)).toEqual(['memory__read_graph']);
	});

	it('takes the token counts from the usage chunk and times the call itself', async () => {
		server.script = () => ({ thinking: 'Hm.', content: 'Twelve chars' });
		const { answer } = await call(provider.chatModel('qwen3-8b'), [new HumanMessage('a'), new AIMessage('b'), new HumanMessage('c')]);
		const usage = provider.usageOf(answer)!;
		// The scripted usage chunk: 10 prompt tokens a message, one completion token a chunk (1 + 3).
		expect(usage).toMatchObject({ inputTokens: 30, outputTokens: 4 });
		expect(usage.firstTokenMs).toBeGreaterThan(0);
		expect(usage.durationMs).toBeGreaterThanOrEqual(usage.firstTokenMs!);
		expect(usage.tokensPerSecond).toBeGreaterThan(0);
		expect(provider.usageOf(new AIMessage('no figures'))).toBeUndefined();
	});

	it('sends no hosted key from the environment to a server configured without one', async () => {
		const before = process.env.OPENAI_API_KEY;
		process.env.OPENAI_API_KEY = 'sk-hosted-secret';
		try {
			server.script = () => ({ content: 'ok' });
			await call(new OpenAIProvider(endpoint(server.url), fetch).chatModel('qwen3-8b'), [new HumanMessage('hi')]);
			expect(server.authorizations.at(-1)).not.toContain('sk-hosted-secret');
			await call(new OpenAIProvider(endpoint(server.url, 'own-key'), fetch).chatModel('qwen3-8b'), [new HumanMessage('hi')]);
			expect(server.authorizations.at(-1)).toBe('Bearer own-key');
		} finally {
			if (before === undefined) delete process.env.OPENAI_API_KEY;
			else process.env.OPENAI_API_KEY = before;
		}
	});

	it("sends reasoning back with this model's own tool-call turns only", async () => {
		const turn = (model: string, id: string, thinking: string) =>
			recordModelCall(
				new AIMessage({ content: '', additional_kwargs: { reasoning_content: thinking }, tool_calls: [{ id, name: 'memory__read_graph', args: { query: 'x' } }] }),
				{ model, run: 'r1' }
			);
		server.script = () => ({ content: 'done' });
		await call(provider.chatModel('qwen3-8b'), [
			new HumanMessage('go'),
			turn('openai/qwen3-8b', 'call_own', 'My own thoughts.'),
			new ToolMessage({ content: '{}', tool_call_id: 'call_own' }),
			turn('ollama/qwen3', 'call_other', 'Another model thought this.'),
			new ToolMessage({ content: '{}', tool_call_id: 'call_other' }),
			new AIMessage('A plain answer.')
		]);
		const sent = server.requests.at(-1)!.messages.filter((m) => m.role === 'assistant');
		expect(sent.map((m) => m.reasoning_content)).toEqual(['My own thoughts.', undefined, undefined]);
	});

	it.each([
		[{ status: 401, error: 'Incorrect API key provided.', code: 'invalid_api_key' }, 'MODEL_AUTH_FAILED', 'set OPENAI_API_KEY'],
		[{ status: 403, error: 'Project does not have access.' }, 'MODEL_AUTH_FAILED', 'refused the API key (403: Project does not have access.)'],
		[{ status: 404, error: 'The model `qwen3-8b` does not exist.', code: 'model_not_found' }, 'MODEL_UNAVAILABLE', 'is not available on "openai"'],
		[{ status: 429, error: 'Rate limit reached.', code: 'rate_limit_exceeded', retryAfter: '3' }, 'MODEL_RATE_LIMITED', 'retry after 3 s'],
		[{ status: 429, error: 'You exceeded your current quota.', code: 'insufficient_quota' }, 'MODEL_RATE_LIMITED', 'out of quota'],
		[{ status: 400, error: '"auto" tool choice requires --enable-auto-tool-choice' }, 'AGENT_FAILURE', "llama.cpp's llama-server needs --jinja"],
		[{ status: 503, error: 'Loading model' }, 'AGENT_FAILURE', '(503: Loading model)']
	])('classifies %j by the client error type: %s', async (httpError, code, message) => {
		server.script = () => ({ httpError });
		const error = await call(provider.chatModel('qwen3-8b'), [new HumanMessage('hi')]).then(
			() => undefined,
			(e: unknown) => provider.classifyError(e, 'qwen3-8b')
		);
		expect(error).toMatchObject({ code, message: expect.stringContaining(message) });
		// The server's words are quoted, never the client library's additions to them.
		expect(error!.message).not.toContain('Troubleshooting URL');
	});

	it('classifies a server that is not there as MODEL_UNREACHABLE, naming where and what to fix', async () => {
		const gone = await ScriptedOpenAI.start(() => ({ content: 'never' }));
		const url = gone.url;
		await gone.close();
		const down = new OpenAIProvider(endpoint(url), fetch);
		const error = await call(down.chatModel('qwen3-8b'), [new HumanMessage('hi')]).then(
			() => undefined,
			(e: unknown) => down.classifyError(e, 'qwen3-8b')
		);
		expect(error).toMatchObject({ code: 'MODEL_UNREACHABLE', message: expect.stringContaining(`not reachable at ${url} (ECONNREFUSED)`) });
		await expect(down.listModels()).rejects.toMatchObject({ code: 'MODEL_UNREACHABLE', message: expect.stringContaining('OPENAI_BASE_URL') });
	});

	it('lists models with GET /models, and says when the base URL lacks /v1', async () => {
		server.models = ['qwen3-8b', 'Qwen/Qwen3-32B'];
		expect(await provider.listModels()).toEqual(['qwen3-8b', 'Qwen/Qwen3-32B']);
		expect(provider.serves(['qwen3-8b'], 'qwen3-8b')).toBe(true);
		expect(provider.serves(['qwen3-8b'], 'qwen3')).toBe(false);
		const noV1 = new OpenAIProvider(endpoint(server.url.replace(/\/v1$/, '')), fetch);
		await expect(noV1.listModels()).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE', message: expect.stringContaining('usually ends in /v1') });
		server.apiKey = 'needed';
		try {
			await expect(provider.listModels()).rejects.toMatchObject({ code: 'MODEL_AUTH_FAILED' });
		} finally {
			server.apiKey = undefined;
			server.models = ['qwen3-8b'];
		}
	});
});
