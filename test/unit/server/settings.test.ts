import { describe, expect, it } from 'vitest';
import { exposureWarning, parseSettings } from '../../../src/lib/server/settings';

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
			MCP_CONTENT_MAX_CHARS: 20_000,
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
		['MCP_CONTENT_MAX_CHARS', '99'],
		['MCP_CONTENT_MAX_CHARS', 'lots'],
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

	describe('the front door', () => {
		const TOKEN = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==';

		it('asks for no token on loopback, and allows nothing else by default', () => {
			const s = parseSettings({});
			expect(s).toMatchObject({ ALLOWED_HOSTS: [], ALLOWED_ORIGINS: [], SOPHOS_INSECURE_NO_AUTH: false });
			expect(s.SOPHOS_TOKEN).toBeUndefined();
			expect(exposureWarning(s)).toBeNull();
		});

		it('parses hosts, origins and the token', () => {
			const s = parseSettings({
				ALLOWED_HOSTS: 'Sophos.lan, proxy.example.com:8443,[fd00::5]:3000',
				ALLOWED_ORIGINS: 'https://sophos.example.com/, http://localhost:5173',
				SOPHOS_TOKEN: TOKEN
			});
			expect(s.ALLOWED_HOSTS).toEqual([{ host: 'sophos.lan' }, { host: 'proxy.example.com', port: 8443 }, { host: 'fd00::5', port: 3000 }]);
			expect(s.ALLOWED_ORIGINS).toEqual(['https://sophos.example.com', 'http://localhost:5173']);
			expect(s.SOPHOS_TOKEN).toBe(TOKEN);
		});

		it.each([
			['ALLOWED_HOSTS', 'sophos.lan,http://x', '"http://x" is not a host or host:port'],
			['ALLOWED_HOSTS', '*', '"*" is not a host'],
			['ALLOWED_HOSTS', 'sophos.lan:99999', 'is not a host'],
			['ALLOWED_ORIGINS', '*', '"*" is not an origin'],
			['ALLOWED_ORIGINS', 'https://x.example/app', 'is not an origin'],
			['ALLOWED_ORIGINS', 'x.example', 'is not an origin'],
			['SOPHOS_INSECURE_NO_AUTH', 'sure', 'Invalid option'],
			['SOPHOS_TOKEN', 'short', '16 to 512'],
			['SOPHOS_TOKEN', 'has spaces in it, sixteen+', '16 to 512'],
			['SOPHOS_TOKEN', 'semi;colon;breaks;cookies', '16 to 512'],
			['SOPHOS_TOKEN', 'x'.repeat(513), '16 to 512'],
			['DATABASE_URL', 'mysql://u:p@db/sophos', 'expected postgres://'],
			['DATABASE_URL', 'sophos.db', 'expected postgres://'],
			['DATABASE_URL', 'postgres://', 'expected postgres://'],
			['DATABASE_URL', 'http://db:5432/sophos', 'expected postgres://'],
			['DATABASE_POOL_MAX', '0', 'Too small'],
			['DATABASE_POOL_MAX', '1001', 'Too big'],
			['DATABASE_POOL_MAX', '2.5', 'expected int'],
			['DATABASE_POOL_MAX', 'many', 'expected number'],
			['RUN_LEASE_MS', '100', 'Too small'],
			['RUN_LEASE_MS', 'soon', 'expected number'],
			['RUN_EVENTS_KEEP_MS', '10', 'Too small'],
			['RUN_EVENTS_KEEP_MS', 'a while', 'expected number'],
			['HEADERS_TIMEOUT_MS', '10', 'Too small'],
			['BODY_TIMEOUT_MS', 'slow', 'expected number'],
			['MAX_CONNECTIONS_PER_CLIENT', '0', 'Too small'],
			['PUBLIC_ORIGIN', 'sophos.example', 'is not an origin'],
			['PUBLIC_ORIGIN', 'https://sophos.example/app', 'is not an origin'],
			['PUBLIC_ORIGIN', 'ftp://sophos.example', 'is not an origin'],
			['SOPHOS_INSTANCE_ID', 'has spaces', '1 to 128'],
			['SOPHOS_INSTANCE_ID', 'x'.repeat(129), '1 to 128']
		])('refuses %s=%j with a message naming it', (name, value, why) => {
			expect(() => parseSettings({ [name]: value })).toThrow(new RegExp(`^Invalid settings: ${name}=`));
			expect(() => parseSettings({ [name]: value })).toThrow(why);
		});

		it('takes PUBLIC_ORIGIN as an origin, unset by default', () => {
			expect(parseSettings({}).PUBLIC_ORIGIN).toBeUndefined();
			expect(parseSettings({ PUBLIC_ORIGIN: 'https://Sophos.Example/' }).PUBLIC_ORIGIN).toBe('https://sophos.example');
		});

		it('never repeats a refused DATABASE_URL, which may hold a password', () => {
			expect(() => parseSettings({ DATABASE_URL: 'mysql://sophos:hunter2@db/sophos' })).toThrow(/^Invalid settings: DATABASE_URL=\(hidden\): /);
			expect(() => parseSettings({ DATABASE_URL: 'mysql://sophos:hunter2@db/sophos' })).not.toThrow(/hunter2/);
		});

		it('takes a PostgreSQL URL, with its host in the authority or in ?host=', () => {
			expect(parseSettings({ DATABASE_URL: 'postgres://sophos:pw@127.0.0.1:5432/sophos' }).DATABASE_URL).toBe('postgres://sophos:pw@127.0.0.1:5432/sophos');
			expect(parseSettings({ DATABASE_URL: 'postgresql:///sophos?host=/run/postgresql' }).DATABASE_URL).toBe('postgresql:///sophos?host=/run/postgresql');
			expect(parseSettings({}).DATABASE_URL).toBeUndefined();
			expect(parseSettings({}).RUN_LEASE_MS).toBe(10_000);
			expect(parseSettings({}).DATABASE_POOL_MAX).toBe(10);
			expect(parseSettings({ DATABASE_POOL_MAX: '40' }).DATABASE_POOL_MAX).toBe(40);
			expect(parseSettings({}).RUN_EVENTS_KEEP_MS).toBe(300_000);
			expect(parseSettings({})).toMatchObject({ HEADERS_TIMEOUT_MS: 20_000, BODY_TIMEOUT_MS: 60_000, MAX_CONNECTIONS_PER_CLIENT: 64 });
		});

		it.each([
			['OPENAI_BASE_URL', 'http://me:pw-secret@127.0.0.1:99999/v1?api-key=qk-secret', 'OPENAI_BASE_URL="http://127.0.0.1:99999/v1?api-key=***"'],
			['OLLAMA_HOST', 'ftp://me:pw-secret@127.0.0.1/?token=qk-secret', 'OLLAMA_HOST="ftp://127.0.0.1/?token=***"']
		])('shows a refused %s without its credentials or query secrets (issue 21)', (name, value, shown) => {
			expect(() => parseSettings({ [name]: value })).toThrow(shown);
			expect(() => parseSettings({ [name]: value })).not.toThrow(/pw-secret|qk-secret/);
		});

		it('keeps the secrets of valid settings out of the error about another one (issue 21)', () => {
			const env = { OPENAI_API_KEY: 'sk-valid-but-secret', OPENAI_BASE_URL: 'http://u:pw-valid@127.0.0.1:1/v1', PORT: 'sk-valid-but-secret' };
			expect(() => parseSettings(env)).toThrow(/^Invalid settings: PORT="\[redacted\]"/);
			expect(() => parseSettings(env)).not.toThrow(/sk-valid-but-secret|pw-valid/);
		});

		it('never repeats a refused token in its message', () => {
			expect(() => parseSettings({ SOPHOS_TOKEN: 'secret;but;bad' })).toThrow(/^Invalid settings: SOPHOS_TOKEN=\(hidden\): /);
			expect(() => parseSettings({ SOPHOS_TOKEN: 'secret;but;bad' })).not.toThrow(/secret/);
		});

		it.each([
			[{ HOST: '0.0.0.0' }, 'HOST="0.0.0.0"'],
			[{ HOST: '::' }, 'HOST="::"'],
			[{ HOST: '192.168.1.10' }, 'HOST="192.168.1.10"'],
			[{ HOST: 'my-laptop' }, 'HOST="my-laptop"'],
			[{ ALLOWED_HOSTS: 'sophos.lan' }, 'ALLOWED_HOSTS is set'],
			[{ HOST: '0.0.0.0', SOPHOS_INSECURE_NO_AUTH: 'false' }, 'HOST="0.0.0.0"'],
			[{ HOST: '0.0.0.0', SOPHOS_TOKEN: '' }, 'HOST="0.0.0.0"']
		])('refuses %j without a token, naming SOPHOS_TOKEN and why', (env, why) => {
			expect(() => parseSettings(env)).toThrow(new RegExp(`^Invalid settings: SOPHOS_TOKEN is required when ${why.replace(/[.*+?^$()[\]]/g, '\\$&')}`));
		});

		it.each([{ HOST: '127.0.0.1' }, { HOST: '127.0.0.2' }, { HOST: 'localhost' }, { HOST: '::1' }])('starts on %j without a token', (env) => {
			expect(parseSettings(env).SOPHOS_TOKEN).toBeUndefined();
		});

		it('starts exposed with a token, or without one only on purpose, and then warns', () => {
			expect(exposureWarning(parseSettings({ HOST: '0.0.0.0', SOPHOS_TOKEN: TOKEN }))).toBeNull();
			expect(exposureWarning(parseSettings({ ALLOWED_HOSTS: 'sophos.lan', SOPHOS_TOKEN: TOKEN }))).toBeNull();
			const warning = exposureWarning(parseSettings({ HOST: '0.0.0.0', SOPHOS_INSECURE_NO_AUTH: 'true' }));
			expect(warning).toMatch(/^WARNING: no token guards this service although HOST="0.0.0.0" .*SOPHOS_INSECURE_NO_AUTH=true/);
		});
	});

	describe('limits', () => {
		it('has the documented defaults', () => {
			expect(parseSettings({})).toMatchObject({
				MAX_CONCURRENT_RUNS: 32,
				MAX_QUEUED_MESSAGES: 20,
				MAX_TOOL_CALLS_PER_STEP: 10,
				MAX_STREAMS_PER_RUN: 10,
				READINESS_CACHE_MS: 1000,
				MAX_IMPORT_BYTES: 1_572_864
			});
			expect(parseSettings({ MAX_QUEUED_MESSAGES: '0', READINESS_CACHE_MS: '0' })).toMatchObject({ MAX_QUEUED_MESSAGES: 0, READINESS_CACHE_MS: 0 });
		});

		it.each([
			['MAX_CONCURRENT_RUNS', '0'],
			['MAX_CONCURRENT_RUNS', '10001'],
			['MAX_CONCURRENT_RUNS', 'many'],
			['MAX_CONCURRENT_RUNS', '1.5'],
			['MAX_QUEUED_MESSAGES', '-1'],
			['MAX_QUEUED_MESSAGES', '1e9'],
			['MAX_TOOL_CALLS_PER_STEP', '0'],
			['MAX_TOOL_CALLS_PER_STEP', '1001'],
			['MAX_STREAMS_PER_RUN', '0'],
			['MAX_STREAMS_PER_RUN', 'Infinity'],
			['READINESS_CACHE_MS', '-5'],
			['READINESS_CACHE_MS', '60001'],
			['READINESS_CACHE_MS', 'soon'],
			['MAX_IMPORT_BYTES', '1023'],
			['MAX_IMPORT_BYTES', '2G'],
			['MAX_IMPORT_BYTES', '1073741825']
		])('refuses %s=%s with a message naming it', (name, value) => {
			expect(() => parseSettings({ [name]: value })).toThrow(new RegExp(`^Invalid settings: ${name}="${value.replace('.', '\\.')}"`));
		});
	});
});
