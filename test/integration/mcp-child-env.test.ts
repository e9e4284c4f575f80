import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { Service } from '../support/service';
import { readEvents } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

/**
 * What a stdio MCP child inherits, as the README says (issue 13): the MCP SDK's allow-list (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER) and the `env` its entry lists, nothing else of the service's
 * environment: no token, no key, no setting.
 */
const TOKEN = 'bmV2ZXItdG8tYS1jaGlsZC10b28';

describe('a stdio MCP server’s environment', () => {
	let ollama: ScriptedOllama;
	let service: Service;

	beforeAll(async () => {
		const { configDir } = testMcpConfig();
		ollama = await ScriptedOllama.start(callsScript([{ name: 'test__env_names', arguments: {} }]));
		service = await Service.start({
			ollamaUrl: ollama.url,
			configDir,
			env: {
				SHELL: '/bin/sh',
				USER: 'sophos',
				LOGNAME: 'sophos',
				TERM: 'dumb',
				AWS_SECRET_ACCESS_KEY: 'never-to-a-child',
				SOPHOS_TOKEN: TOKEN
			}
		});
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it('holds the allow-list and its own env only', async () => {
		const auth = { Authorization: `Bearer ${TOKEN}` };
		const started = await service.fetch('/api/chat', {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', ...auth },
			body: JSON.stringify({ message: 'what do you see?' })
		});
		const { conversation } = await started.json();
		const events = await readEvents(await service.fetch(`/api/chat?conversation=${conversation}`, { headers: auth }));
		expect(events.at(-1)?.event).toBe('end');
		const detail = await (await service.fetch(`/api/conversations/${conversation}`, { headers: auth })).json();
		const tool = (detail.messages as { role: string; content: string }[]).find((m) => m.role === 'tool')!;
		expect(tool.content.split(',')).toEqual(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'TEST_MCP_LOG', 'USER']);
	});
});
