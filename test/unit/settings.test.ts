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
			SSE_READER_BACKLOG_BYTES: 1_048_576,
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
		['SSE_READER_BACKLOG_BYTES', '1024'],
		['MCP_TOOL_TIMEOUT_MS', 'soon'],
		['TOOL_RESULT_MAX_CHARS', '10'],
		['UNFINISHED_TOOL_CALLS', 'sometimes'],
		['SHUTDOWN_DRAIN_MS', '-1'],
		['AUTO_RESUME', 'perhaps'],
		['AUTO_RESUME_MAX', '0'],
		['SOPHOS_CRASH_AT', 'nowhere'],
		['CHECKPOINT_RETENTION', 'latest:0'],
		['CHECKPOINT_RETENTION', 'some'],
		['SOPHOS_CRASH_AT', 'before-tool-call:0']
	])('refuses %s=%s with a message naming it', (name, value) => {
		expect(() => parseSettings({ [name]: value })).toThrow(new RegExp(`^Invalid settings: ${name}="${value.replace('.', '\\.')}"`));
	});

	it('names every bad variable at once', () => {
		expect(() => parseSettings({ PORT: 'x', OLLAMA_THINK: 'y' })).toThrow(/OLLAMA_THINK=.*PORT=|PORT=.*OLLAMA_THINK=/);
	});
});
