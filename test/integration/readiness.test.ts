import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samples } from '../support/prometheus';
import { ScriptedOllama } from '../support/scripted-ollama';
import { ScriptedOpenAI } from '../support/scripted-openai';
import { answerScript, walkthroughScript } from '../support/scripts';
import { ROOT, Service, tempDir } from '../support/service';
import { followRun } from '../support/sse';

function configWith(extraServers: Record<string, unknown>): string {
	const dir = tempDir('sophos-config-');
	const base = JSON.parse(fs.readFileSync(path.join(ROOT, 'config/mcp.json'), 'utf8'));
	fs.writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify({ ...base, ...extraServers }));
	fs.copyFileSync(path.join(ROOT, 'config/system.md'), path.join(dir, 'system.md'));
	return dir;
}

describe('readiness', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('ok'));
		// These tests change the model list between two checks: no result may answer twice.
		service = await Service.start({ ollamaUrl: ollama.url, env: { READINESS_CACHE_MS: '0' } });
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	it('is ok when the database, the model and every MCP server are up', async () => {
		const res = await service.fetch('/api/readyz');
		expect(res.status).toBe(200);
		const body = await res.json();
		expect(body.status).toBe('ok');
		expect(body.checks.database).toEqual({ status: 'ok' });
		expect(body.checks.model).toEqual({ status: 'ok' });
		expect(body.checks.mcp).toEqual({ memory: { status: 'ok', tools: 9 }, fetch: { status: 'ok', tools: 1 } });
		expect(await (await service.fetch('/api/healthz')).json()).toEqual({ status: 'ok' });
	});

	it('matches the model name exactly, not as a substring', async () => {
		ollama.models = ['qwen3-coder:latest', 'my-qwen3:latest'];
		try {
			const res = await service.fetch('/api/readyz');
			expect(res.status).toBe(503);
			expect((await res.json()).message).toContain('Model "qwen3" is not pulled');
		} finally {
			ollama.models = ['qwen3:latest'];
		}
	});
});

/** One metric's samples from the service's /api/metrics. */
const figures = async (service: Service, name: string) => samples(await (await service.fetch('/api/metrics')).text(), name);

describe('MCP servers that are down', () => {
	it('a server that cannot start is reported, and runs go on with the tools that are up', async () => {
		const ollama = await ScriptedOllama.start(walkthroughScript({ url: 'https://example.com', fetch: false }));
		const configDir = configWith({ broken: { command: 'node', args: ['-e', 'process.exit(3)'] } });
		const service = await Service.start({ ollamaUrl: ollama.url, configDir });
		try {
			const res = await service.fetch('/api/readyz');
			expect(res.status).toBe(503);
			const body = await res.json();
			expect(body.checks.mcp.broken.status).toBe('error');
			expect(body.checks.mcp.memory.status).toBe('ok');
			expect(body.message).toContain('MCP server "broken"');
			const up = await figures(service, 'sophos_mcp_server_up');
			expect([up['sophos_mcp_server_up{server="broken"}'], up['sophos_mcp_server_up{server="memory"}']]).toEqual([0, 1]);

			const { conversation } = await (await service.post('/api/chat', { message: 'save something' })).json();
			const events = await followRun(service.url, conversation);
			expect(events[0]).toMatchObject({ event: 'warning', data: { code: 'TOOLS_UNAVAILABLE', servers: ['broken'] } });
			expect(events.at(-1)?.event).toBe('end');
			const offered = ollama.requests.at(-1)!.tools!.map((t) => t.function.name);
			expect(offered).toHaveLength(10);
			expect(offered).toEqual(expect.arrayContaining(['memory__create_entities', 'fetch__fetch']));
		} finally {
			await service.stop();
			await ollama.close();
		}
	});

	it('a memory server killed between two messages is restarted for the second', async () => {
		const ollama = await ScriptedOllama.start(walkthroughScript({ url: 'https://example.com', fetch: false }));
		const service = await Service.start({ ollamaUrl: ollama.url });
		try {
			const first = (await (await service.post('/api/chat', { message: 'one' })).json()).conversation;
			expect((await followRun(service.url, first)).at(-1)?.event).toBe('end');

			const memoryPid = execFileSync('pgrep', ['-P', String(service.child.pid), '-f', 'server-memory'])
				.toString()
				.trim();
			expect(memoryPid).toMatch(/^\d+$/);
			process.kill(Number(memoryPid), 'SIGKILL');
			// Between the two messages: once the service has seen the server go, not while its exit is in flight.
			await service.waitForOutput(/MCP: server "memory" is down/);
			expect((await figures(service, 'sophos_mcp_server_up'))['sophos_mcp_server_up{server="memory"}']).toBe(0);

			const second = (await (await service.post('/api/chat', { message: 'two' })).json()).conversation;
			const events = await followRun(service.url, second);
			expect(events.at(-1)?.event).toBe('end');
			const detail = await (await service.fetch(`/api/conversations/${second}`)).json();
			const tools = detail.messages.filter((m: { role: string }) => m.role === 'tool');
			// The restarted server reads the same memory file: the entity the first run created is there,
			// so this time adding the observation succeeds.
			expect(tools.map((m: { status: string }) => m.status)).toEqual(['success', 'success', 'success']);
			expect(tools[0].content).toContain('example.com');
			const ready = await (await service.fetch('/api/readyz')).json();
			expect(ready.checks.mcp.memory.status).toBe('ok');
			expect((await figures(service, 'sophos_mcp_server_up'))['sophos_mcp_server_up{server="memory"}']).toBe(1);
			expect((await figures(service, 'sophos_mcp_server_restarts_total'))['sophos_mcp_server_restarts_total{server="memory"}']).toBe(1);
		} finally {
			await service.stop();
			await ollama.close();
		}
	});
});

describe('readiness of each model provider', () => {
	it('checks every configured provider and names the one that is down', async () => {
		const ollama = await ScriptedOllama.start(answerScript('ok'));
		const openai = await ScriptedOpenAI.start(answerScript('ok'));
		const service = await Service.start({ ollamaUrl: ollama.url, env: { OPENAI_BASE_URL: openai.url, READINESS_CACHE_MS: '0' } });
		try {
			const up = await (await service.fetch('/api/readyz')).json();
			expect(up).toMatchObject({ status: 'ok', defaultModel: 'ollama/qwen3' });
			expect(up.checks.providers).toEqual({ ollama: { status: 'ok', kind: 'ollama' }, openai: { status: 'ok', kind: 'openai' } });

			const url = openai.url;
			await openai.close();
			const res = await service.fetch('/api/readyz');
			expect(res.status).toBe(503);
			const down = await res.json();
			// The default model is fine; the other provider is named with what to do.
			expect(down.checks.model).toEqual({ status: 'ok' });
			expect(down.checks.providers.openai).toMatchObject({ status: 'error', kind: 'openai' });
			expect(down.message).toContain(`Model server "openai": The model server "openai" is not reachable at ${url}`);
			expect(down.message).toContain('OPENAI_BASE_URL');
		} finally {
			await service.stop();
			await ollama.close();
		}
	});

	it('leaves Ollama out when DEFAULT_MODEL names another provider and no OLLAMA_ setting is given', async () => {
		const openai = await ScriptedOpenAI.start(answerScript('ok'));
		const service = await Service.start({ env: openai.serviceEnv() });
		try {
			const res = await service.fetch('/api/readyz');
			expect(res.status).toBe(200);
			expect(Object.keys((await res.json()).checks.providers)).toEqual(['openai']);
		} finally {
			await service.stop();
			await openai.close();
		}
	});
});
