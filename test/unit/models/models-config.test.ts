import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelsConfig } from '../../../src/lib/server/models/models-config';
import { tempDir } from '../../support/service';

function file(content: unknown): string {
	const f = path.join(tempDir('sophos-models-'), 'models.json');
	fs.writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
	return f;
}

describe('models.json', () => {
	it('is optional: no file, no extra providers', async () => {
		expect(await loadModelsConfig(path.join(tempDir(), 'models.json'), {})).toEqual([]);
	});

	it('names OpenAI-compatible endpoints, with ${VAR} taken from the environment', async () => {
		const f = file({
			lmstudio: { baseUrl: 'http://127.0.0.1:1234/v1' },
			vllm: { baseUrl: 'http://${VLLM_HOST}:8000/v1', apiKey: '${VLLM_KEY}' },
			'no-key': { baseUrl: 'http://${LLAMA_HOST:-127.0.0.1}:8080/v1', apiKey: '${UNSET_KEY:-}' }
		});
		expect(await loadModelsConfig(f, { VLLM_HOST: 'gpu-box', VLLM_KEY: 'secret' })).toEqual([
			{ name: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1', urlSetting: '"lmstudio".baseUrl in models.json', keySetting: '"lmstudio".apiKey in models.json' },
			{
				name: 'vllm',
				baseUrl: 'http://gpu-box:8000/v1',
				apiKey: 'secret',
				keyVariables: ['VLLM_KEY'],
				urlSetting: '"vllm".baseUrl in models.json',
				keySetting: '"vllm".apiKey in models.json'
			},
			{
				name: 'no-key',
				baseUrl: 'http://127.0.0.1:8080/v1',
				keyVariables: ['UNSET_KEY'],
				urlSetting: '"no-key".baseUrl in models.json',
				keySetting: '"no-key".apiKey in models.json'
			}
		]);
	});

	it.each([
		['an unknown key', { lmstudio: { baseUrl: 'http://127.0.0.1:1234/v1', apikey: 'x' } }, 'lmstudio: Unrecognized key: "apikey"'],
		['no baseUrl', { lmstudio: {} }, 'lmstudio.baseUrl'],
		['a baseUrl that is no http(s) URL', { lmstudio: { baseUrl: 'file:///etc/passwd' } }, 'lmstudio.baseUrl: expected an http(s) URL'],
		['a variable that is unset', { lmstudio: { baseUrl: 'http://127.0.0.1:1234/v1', apiKey: '${LMSTUDIO_KEY}' } }, 'lmstudio.apiKey: uses ${LMSTUDIO_KEY}, which is not set'],
		['a baseUrl that expands to nothing', { lmstudio: { baseUrl: '${LMSTUDIO_URL:-}' } }, 'lmstudio.baseUrl: expected an http(s) URL'],
		['a name taken by a built-in provider', { ollama: { baseUrl: 'http://127.0.0.1:11434/v1' } }, 'ollama: this name is taken'],
		['a name with a slash', { 'lm/studio': { baseUrl: 'http://127.0.0.1:1234/v1' } }, 'provider names may hold letters, digits, _ and -'],
		['not JSON', '{"lmstudio": ', 'Failed to load model server configuration'],
		['not an object', '[]', 'Invalid model server configuration']
	])('refuses %s, naming the file and the key', async (_, content, message) => {
		const f = file(content);
		await expect(loadModelsConfig(f, {})).rejects.toThrow(message);
		await expect(loadModelsConfig(f, {})).rejects.toThrow(f);
	});
});
