import { AIMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { describe, expect, it } from 'vitest';
import { RunFailure } from '../../../src/lib/server/errors';
import { modelCallOf } from '../../../src/lib/server/models/model-call';
import { ModelCatalog } from '../../../src/lib/server/models/model-catalog';
import { parseModelId } from '../../../src/lib/protocol/model-id';
import { runRefusalError } from '../../../src/lib/server/http/run-refusal-error';
import type { ModelProvider } from '../../../src/lib/server/models/model-provider';

/** A provider that answers from a list, or is down; enough to test the catalog's decisions. */
function fake(name: string, models: string[] | 'down', kind: 'ollama' | 'openai' = 'openai'): ModelProvider {
	return {
		name,
		kind,
		address: 'http://127.0.0.1:1',
		chatModel: () => new FakeListChatModel({ responses: ['ok'] }),
		listModels: async () => {
			if (models === 'down') throw new RunFailure('MODEL_UNREACHABLE', `${name} is down`);
			return models;
		},
		serves: (listed, model) => listed.includes(model),
		notServed: (model) => new RunFailure('MODEL_UNAVAILABLE', `${name} does not serve ${model}`),
		classifyError: (e) => (e instanceof RunFailure ? e : new RunFailure('AGENT_FAILURE', String(e))),
		usageOf: (answer) => {
			const tokens = (answer.response_metadata as { tokens?: number }).tokens;
			return tokens === undefined ? undefined : { outputTokens: tokens };
		}
	};
}

describe('model ids', () => {
	it('split at the first slash, so model names may hold slashes', () => {
		expect(parseModelId('ollama/qwen3:8b')).toEqual({ provider: 'ollama', model: 'qwen3:8b' });
		expect(parseModelId('vllm/Qwen/Qwen3-8B')).toEqual({ provider: 'vllm', model: 'Qwen/Qwen3-8B' });
		for (const bad of ['qwen3', '/qwen3', 'ollama/', 'ol lama/qwen3', 'ollama/ qwen3', '']) expect(parseModelId(bad)).toBeNull();
	});
});

describe('ModelCatalog', () => {
	const catalog = () => new ModelCatalog([fake('ollama', ['qwen3'], 'ollama'), fake('lmstudio', ['qwen/qwen3-8b', 'gemma-3']), fake('vllm', 'down')], 'ollama/qwen3');

	it('refuses a default that names no configured provider, naming DEFAULT_MODEL', () => {
		expect(() => new ModelCatalog([fake('ollama', [])], 'openai/gpt-4o')).toThrow('DEFAULT_MODEL="openai/gpt-4o": no provider "openai" is configured (configured: ollama)');
		expect(() => new ModelCatalog([fake('ollama', [])], 'qwen3')).toThrow('DEFAULT_MODEL="qwen3": expected <provider>/<model>');
	});

	it('lists the models of the providers that answered, and how each is', async () => {
		expect(await catalog().list()).toEqual({
			default: 'ollama/qwen3',
			models: [
				{ id: 'ollama/qwen3', provider: 'ollama', name: 'qwen3' },
				{ id: 'lmstudio/qwen/qwen3-8b', provider: 'lmstudio', name: 'qwen/qwen3-8b' },
				{ id: 'lmstudio/gemma-3', provider: 'lmstudio', name: 'gemma-3' }
			],
			providers: [
				{ name: 'ollama', kind: 'ollama', status: 'ok' },
				{ name: 'lmstudio', kind: 'openai', status: 'ok' },
				{ name: 'vllm', kind: 'openai', status: 'error', message: 'vllm is down' }
			]
		});
	});

	it('checks a chosen model: unknown provider or model is BAD_REQUEST naming it; a provider that is down gets the doubt', async () => {
		const c = catalog();
		await expect(c.checkChoice('lmstudio/gemma-3')).resolves.toBeNull();
		expect(runRefusalError((await c.checkChoice('openai/gpt-4o'))!)).toMatchObject({
			code: 'BAD_REQUEST',
			message: 'Unknown model "openai/gpt-4o": no provider "openai" is configured (configured: ollama, lmstudio, vllm)'
		});
		expect(runRefusalError((await c.checkChoice('lmstudio/llama3'))!)).toMatchObject({
			code: 'BAD_REQUEST',
			message: 'Unknown model "lmstudio/llama3": "lmstudio" serves qwen/qwen3-8b, gemma-3 (see GET /api/models)'
		});
		await expect(c.checkChoice('vllm/anything')).resolves.toBeNull();
	});

	it('gives a new conversation without a choice the default, and leaves the rest to the conversation', async () => {
		const c = catalog();
		expect(await c.choose({ kind: 'message', conversation: null, message: 'hi' })).toEqual({ kind: 'message', conversation: null, message: 'hi', model: 'ollama/qwen3' });
		expect(await c.choose({ kind: 'message', conversation: 'c1', message: 'hi' })).toEqual({ kind: 'message', conversation: 'c1', message: 'hi' });
		expect(await c.choose({ kind: 'resume', conversation: 'c1', model: 'lmstudio/gemma-3' })).toMatchObject({ model: 'lmstudio/gemma-3' });
		expect(await c.choose({ kind: 'resume', conversation: 'c1', model: 'lmstudio/nope' })).toMatchObject({ refused: 'model-not-served' });
	});

	it('reports the default model and every provider for readiness', async () => {
		expect(await catalog().readiness()).toEqual({
			model: { status: 'ok' },
			providers: {
				ollama: { status: 'ok', kind: 'ollama' },
				lmstudio: { status: 'ok', kind: 'openai' },
				vllm: { status: 'error', kind: 'openai', message: 'vllm is down' }
			}
		});
		const notServed = new ModelCatalog([fake('ollama', ['llama3'], 'ollama')], 'ollama/qwen3');
		expect((await notServed.readiness()).model).toEqual({ status: 'error', message: 'ollama does not serve qwen3' });
		const down = new ModelCatalog([fake('vllm', 'down')], 'vllm/x');
		expect((await down.readiness()).model).toEqual({ status: 'error', message: 'vllm is down' });
	});

	it("records the step's model, run and usage on its answer; a stored model whose provider left the config fails the step", () => {
		const step = catalog().step('lmstudio/gemma-3', 'run-1');
		expect(step.chat).toBeInstanceOf(FakeListChatModel);
		const answer = step.record(new AIMessage({ content: 'hi', response_metadata: { tokens: 7 } }));
		expect(modelCallOf(answer)).toEqual({ model: 'lmstudio/gemma-3', run: 'run-1', usage: { outputTokens: 7 } });
		expect(() => catalog().step('gone/model', 'run-1')).toThrow(expect.objectContaining({ code: 'MODEL_UNAVAILABLE' }));
	});
});
