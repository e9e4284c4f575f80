import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMcpServerCommand } from '../support/mcp-test-server-command';
import { ScriptedOllama } from '../support/scripted-ollama';
import { ScriptedOpenAI } from '../support/scripted-openai';
import { answerScript } from '../support/scripts';
import { freePort, ROOT, Service, tempDir } from '../support/service';
import { readEvents } from '../support/sse';

/**
 * Issue 21, item 2: no secret Sophos holds reaches a response, an event, a stored message, an
 * export or a log line, whatever a model server sends back or a configured URL holds.
 */

const OPENAI_KEY = 'sk-openai-1f0c9e7d5b3a2c4e6f8a';
const HOSTED_KEY = 'sk-hosted-7a6b5c4d3e2f1a0b9c8d';

/** A config directory with the shipped mcp.json and system prompt, and `files` beside them. */
function configWith(files: Record<string, unknown>): string {
	const dir = tempDir('sophos-config-');
	fs.copyFileSync(path.join(ROOT, 'config/mcp.json'), path.join(dir, 'mcp.json'));
	fs.copyFileSync(path.join(ROOT, 'config/system.md'), path.join(dir, 'system.md'));
	for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), JSON.stringify(content));
	return dir;
}

/**
 * Everything a failed run leaves that leaves the service: its stream followed live (the call is
 * held until the stream is open), its run record, the conversation's detail, its exports, then
 * readiness and the model list, as one text.
 */
async function failedRunTexts(service: Service, server: ScriptedOpenAI | ScriptedOllama, body: Record<string, unknown>, hold: string): Promise<string> {
	server.holdNext = hold;
	const started = await service.post('/api/chat', body);
	expect(started.status).toBe(200);
	const { conversation } = await started.json();
	await server.held(hold);
	const stream = await service.fetch(`/api/chat?conversation=${conversation}`);
	server.release(hold);
	const events = await readEvents(stream);
	expect(events.at(-1)?.event).toBe('chat-error');
	const texts = await Promise.all(
		[
			`/api/conversations/${conversation}/runs`,
			`/api/conversations/${conversation}`,
			`/api/conversations/${conversation}/export`,
			`/api/conversations/${conversation}/export?format=jsonl&branches=all`,
			`/api/conversations/${conversation}/export?format=bundle`,
			'/api/readyz',
			'/api/models'
		].map(async (p) => (await service.fetch(p)).text())
	);
	return [JSON.stringify(events), ...texts].join('\n');
}

describe('a model server that echoes the Authorization header in its errors', () => {
	let openai: ScriptedOpenAI;
	let hosted: ScriptedOpenAI;
	let service: Service;

	beforeAll(async () => {
		openai = await ScriptedOpenAI.start(answerScript('ok'), { apiKey: OPENAI_KEY });
		hosted = await ScriptedOpenAI.start(answerScript('ok'), { apiKey: HOSTED_KEY });
		const configDir = configWith({ 'models.json': { hosted: { baseUrl: hosted.url, apiKey: '${HOSTED_API_KEY}' } } });
		service = await Service.start({
			configDir,
			env: { ...openai.serviceEnv(), HOSTED_API_KEY: HOSTED_KEY, READINESS_CACHE_MS: '0' }
		});
	});
	afterAll(async () => {
		await service?.stop();
		await openai?.close();
		await hosted?.close();
	});

	it.each([401, 403, 404, 429, 400, 500])('%i: the key is nowhere, its class still said', async (status) => {
		openai.echoStatus = status;
		hosted.echoStatus = status;
		try {
			const fromOpenAI = await failedRunTexts(service, openai, { message: `echo ${status}` }, `openai-${status}`);
			const fromHosted = await failedRunTexts(service, hosted, { message: `echo ${status}`, model: 'hosted/qwen3-8b' }, `hosted-${status}`);
			// The keys went to the servers and came back in their errors: the test would see a leak.
			expect(openai.authorizations.at(-1)).toBe(`Bearer ${OPENAI_KEY}`);
			expect(hosted.authorizations.at(-1)).toBe(`Bearer ${HOSTED_KEY}`);
			for (const text of [fromOpenAI, fromHosted]) {
				expect(text).not.toContain(OPENAI_KEY);
				expect(text).not.toContain(HOSTED_KEY);
				expect(text).toContain('[redacted]');
			}
			expect(fromOpenAI).toContain(`Refused POST /v1/chat/completions with Authorization: Bearer [redacted]`);
		} finally {
			openai.echoStatus = undefined;
			hosted.echoStatus = undefined;
		}
	});

	it('the log holds neither key', async () => {
		// The runs above were logged with their errors, the client's response bodies in their causes.
		expect(service.output).toContain('failed');
		expect(service.output).not.toContain(OPENAI_KEY);
		expect(service.output).not.toContain(HOSTED_KEY);
	});
});

describe('an OLLAMA_HOST with a query secret, behind a proxy that echoes its errors', () => {
	const SECRET = 'ollama-proxy-token-2d1c0b9a';
	let ollama: ScriptedOllama;
	let service: Service;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('ok'));
		service = await Service.start({ ollamaUrl: `${ollama.url}/?token=${SECRET}`, env: { READINESS_CACHE_MS: '0' } });
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it.each([401, 403, 404, 429, 500])('%i: the address is shown without it', async (status) => {
		ollama.echoStatus = status;
		try {
			const text = await failedRunTexts(service, ollama, { message: `echo ${status}` }, `ollama-${status}`);
			expect(text).not.toContain(SECRET);
			expect(text).toContain(`${ollama.url}/?token=***`);
		} finally {
			ollama.echoStatus = undefined;
		}
		expect(service.output).not.toContain(SECRET);
	});
});

describe('a base URL with user:password@ and ?api-key=', () => {
	const PASSWORD = 'url-password-5e4d3c2b';
	const QUERY_KEY = 'query-key-9f8e7d6c';
	let openai: ScriptedOpenAI;
	let service: Service;
	let host: string;

	beforeAll(async () => {
		openai = await ScriptedOpenAI.start(answerScript('ok'));
		host = new URL(openai.url).host;
		service = await Service.start({
			env: {
				OPENAI_BASE_URL: `http://sophos:${PASSWORD}@${host}/v1?api-key=${QUERY_KEY}`,
				DEFAULT_MODEL: openai.defaultModel,
				READINESS_CACHE_MS: '0'
			}
		});
	});
	afterAll(async () => {
		await service?.stop();
		await openai?.close();
	});

	it('shows the address without them in the run error, the stream, readiness, GET /api/models and the log', async () => {
		const { conversation } = await (await service.post('/api/chat', { message: 'hi' })).json();
		const events = await readEvents(await service.fetch(`/api/chat?conversation=${conversation}`));
		expect(events.at(-1)).toMatchObject({ event: 'chat-error', data: { code: 'MODEL_UNREACHABLE' } });
		const texts = await Promise.all(
			[`/api/conversations/${conversation}/runs`, `/api/conversations/${conversation}/export?format=jsonl`, '/api/readyz', '/api/models'].map(
				async (p) => (await service.fetch(p)).text()
			)
		);
		const all = [JSON.stringify(events), ...texts, service.output].join('\n');
		expect(all).not.toContain(PASSWORD);
		expect(all).not.toContain(QUERY_KEY);
		expect(all).not.toContain('sophos:');
		// Still the address a person recognises.
		expect(JSON.stringify(events)).toContain(`http://${host}/v1?api-key=***`);
	});
});

describe('the settings error that refuses the start', () => {
	const refusal = async (env: Record<string, string>, configDir?: string) => {
		const error = (await Service.start({ env, ...(configDir ? { configDir } : {}) }).then(
			() => new Error('started'),
			(e: Error) => e
		)) as Error;
		expect(error.message).toMatch(/^service exited \(1\) before listening/);
		return error.message;
	};

	it('shows a refused URL setting without its credentials or query secrets', async () => {
		const message = await refusal({ OPENAI_BASE_URL: 'http://me:pw-4b3a2918@127.0.0.1:99999/v1?api-key=qk-77665544', DEFAULT_MODEL: 'openai/x' });
		expect(message).toContain('OPENAI_BASE_URL="http://127.0.0.1:99999/v1?api-key=***"');
		expect(message).not.toContain('pw-4b3a2918');
		expect(message).not.toContain('qk-77665544');
	});

	it('names no part of DATABASE_URL when its server cannot be opened', async () => {
		const port = await freePort();
		const message = await refusal({ DATABASE_URL: `postgres://sophos:db-pw-3c2b1a09@127.0.0.1:${port}/sophos` });
		expect(message).toContain(`Cannot open PostgreSQL at 127.0.0.1:${port}/sophos`);
		expect(message).not.toContain('db-pw-3c2b1a09');
	});
});

describe('a pasted mcp.json that hands Sophos secrets to a server', () => {
	const server = testMcpServerCommand();
	const mcp = (entry: Record<string, unknown>) => ({ mcpServers: { helper: { ...server, ...entry } } });

	it.each([
		['OPENAI_API_KEY in env', { env: { TEST_MCP_LOG: '/dev/null', X: '${OPENAI_API_KEY}' } }, 'helper.env.X uses ${OPENAI_API_KEY}'],
		['SOPHOS_TOKEN in args', { args: [...server.args, '--token=${SOPHOS_TOKEN:-none}'] }, `helper.args.${server.args.length} uses ` + '${SOPHOS_TOKEN}'],
		['a models.json key in env', { env: { TEST_MCP_LOG: '/dev/null', K: 'Bearer ${HOSTED_API_KEY}' } }, 'helper.env.K uses ${HOSTED_API_KEY}']
	])('%s: refused at start, saying how to allow it', async (_, entry, why) => {
		const configDir = configWith({
			'mcp.json': mcp(entry),
			'models.json': { hosted: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: '${HOSTED_API_KEY}' } }
		});
		const error = (await Service.start({
			configDir,
			env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: OPENAI_KEY, HOSTED_API_KEY: HOSTED_KEY, DEFAULT_MODEL: 'openai/x' }
		}).then(
			() => new Error('started'),
			(e: Error) => e
		)) as Error;
		expect(error.message).toMatch(/^service exited \(1\) before listening/);
		expect(error.message).toContain(why);
		expect(error.message).toContain(`"helper".allowSecrets`);
		expect(error.message).not.toContain(OPENAI_KEY);
		expect(error.message).not.toContain(HOSTED_KEY);
	});

	it('starts when the entry names the secret in allowSecrets', async () => {
		const configDir = configWith({
			'mcp.json': mcp({ env: { TEST_MCP_LOG: path.join(tempDir(), 'calls.log'), X: '${OPENAI_API_KEY}' }, allowSecrets: ['OPENAI_API_KEY'] })
		});
		const service = await Service.start({
			configDir,
			env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: OPENAI_KEY, DEFAULT_MODEL: 'openai/x' }
		});
		await service.stop();
	});
});
