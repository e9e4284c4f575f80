import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../src/lib/server/settings';

describe('settings', () => {
	it('has the documented defaults, with paths made absolute', () => {
		const s = parseSettings({}, '/srv/sophos');
		expect(s).toMatchObject({
			OLLAMA_HOST: 'http://127.0.0.1:11434',
			OLLAMA_MODEL: 'qwen3',
			OLLAMA_THINK: false,
			HOST: '127.0.0.1',
			PORT: 3000,
			AGENT_RECURSION_LIMIT: 25,
			SSE_BUFFER_EVENTS: 10_000,
			MAX_MESSAGE_CHARS: 32_000,
			MCP_TOOL_TIMEOUT_MS: 60_000,
			TOOL_RESULT_MAX_CHARS: 20_000,
			UNFINISHED_TOOL_CALLS: 'auto',
			SHUTDOWN_DRAIN_MS: 10_000,
			AUTO_RESUME: false,
			AUTO_RESUME_MAX: 3,
			CHECKPOINT_RETENTION: { kind: 'all' }
		});
		expect(parseSettings({ CHECKPOINT_RETENTION: 'latest:5' }).CHECKPOINT_RETENTION).toEqual({ kind: 'latest', keep: 5 });
		expect(s.SOPHOS_CRASH_AT).toBeUndefined();
		expect(s.paths).toEqual({
			database: '/srv/sophos/data/sophos.db',
			configDir: '/srv/sophos/config',
			memoryFile: '/srv/sophos/data/memory.jsonl'
		});
	});

	it('treats an empty value as unset', () => {
		expect(parseSettings({ OLLAMA_MODEL: '', AGENT_RECURSION_LIMIT: '  ' }).OLLAMA_MODEL).toBe('qwen3');
	});

	it('parses booleans, numbers and lists', () => {
		const s = parseSettings({
			OLLAMA_THINK: 'TRUE',
			AGENT_RECURSION_LIMIT: '40',
			MCP_TOOLS_DENY: 'memory__delete_*, ,fetch__fetch'
		});
		expect(s.OLLAMA_THINK).toBe(true);
		expect(s.AGENT_RECURSION_LIMIT).toBe(40);
		expect(s.MCP_TOOLS_DENY).toEqual(['memory__delete_*', 'fetch__fetch']);
		expect(parseSettings({ DATABASE_PATH: ':memory:' }).paths.database).toBe(':memory:');
		expect(parseSettings({ SOPHOS_CRASH_AT: 'mid-model-stream:2' }).SOPHOS_CRASH_AT).toEqual({ point: 'mid-model-stream', n: 2 });
	});

	it.each([
		['OLLAMA_HOST', 'ftp://x'],
		['OLLAMA_THINK', 'on-ish'],
		['AGENT_RECURSION_LIMIT', '2.5'],
		['PORT', '-1'],
		['SSE_BUFFER_EVENTS', '99'],
		['MCP_TOOL_TIMEOUT_MS', 'soon'],
		['TOOL_RESULT_MAX_CHARS', '10'],
		['UNFINISHED_TOOL_CALLS', 'sometimes'],
		['SHUTDOWN_DRAIN_MS', '-1'],
		['AUTO_RESUME', 'perhaps'],
		['AUTO_RESUME_MAX', '0'],
		['SOPHOS_CRASH_AT', 'nowhere'],
		['CHECKPOINT_RETENTION', 'latest:0'],
		['CHECKPOINT_RETENTION', 'some'],
		['SOPHOS_CRASH_AT', 'before-tool-call:0'],
		['OPENAI_BASE_URL', 'localhost:1234'],
		['DEFAULT_MODEL', 'qwen3']
	])('refuses %s=%s with a message naming it', (name, value) => {
		expect(() => parseSettings({ [name]: value })).toThrow(new RegExp(`^Invalid settings: ${name}="${value.replace('.', '\\.')}"`));
	});

	it('picks the default model and whether Ollama is a provider', () => {
		expect(parseSettings({})).toMatchObject({ defaultModel: 'ollama/qwen3', ollamaEnabled: true });
		expect(parseSettings({ OLLAMA_MODEL: 'llama3.2' }).defaultModel).toBe('ollama/llama3.2');
		// LM Studio alone: Ollama is left out, so it is not reported down.
		const lmstudio = parseSettings({ OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1', DEFAULT_MODEL: 'openai/qwen/qwen3-8b' });
		expect(lmstudio).toMatchObject({ defaultModel: 'openai/qwen/qwen3-8b', ollamaEnabled: false, OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' });
		expect(parseSettings({ DEFAULT_MODEL: 'openai/x', OLLAMA_HOST: 'http://127.0.0.1:11434' }).ollamaEnabled).toBe(true);
	});

	it('names every bad variable at once', () => {
		expect(() => parseSettings({ PORT: 'x', OLLAMA_THINK: 'y' })).toThrow(/OLLAMA_THINK=.*PORT=|PORT=.*OLLAMA_THINK=/);
	});
});
