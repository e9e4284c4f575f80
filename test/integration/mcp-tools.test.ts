import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { Service } from '../support/service';
import { testMcpConfig } from '../support/test-config';
import { followRun } from '../support/sse';



type ToolMessage = { role: string; name?: string; status?: string; content: string };

async function runOnce(service: Service, message: string): Promise<ToolMessage[]> {
	const { conversation } = await (await service.post('/api/chat', { message })).json();
	expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
	const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
	return (detail.messages as ToolMessage[]).filter((m) => m.role === 'tool');
}

describe('MCP tool calls', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	afterEach(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it('a call past MCP_TOOL_TIMEOUT_MS becomes a tool error, and the server is told to cancel it', async () => {
		const { configDir } = testMcpConfig();
		ollama = await ScriptedOllama.start(callsScript([{ name: 'test__hang', arguments: {} }, { name: 'test__read_log', arguments: {} }]));
		service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { MCP_TOOL_TIMEOUT_MS: '300' } });
		const [hang, log] = await runOnce(service, 'hang please');
		expect(hang).toMatchObject({ name: 'test__hang', status: 'error' });
		expect(hang!.content).toContain('timed out after 300 ms');
		// Calls on one connection are handled in order, so the log read comes after the cancellation.
		expect(log!.content).toMatch(/hang started (\d+)\nhang cancelled \1\n/);
	});

	it('cuts a result over TOOL_RESULT_MAX_CHARS before it enters the thread', async () => {
		const { configDir } = testMcpConfig();
		ollama = await ScriptedOllama.start(callsScript([{ name: 'test__big', arguments: { size: 5000 } }]));
		service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { TOOL_RESULT_MAX_CHARS: '1000' } });
		const [big] = await runOnce(service, 'big please');
		expect(big!.status).toBe('success');
		expect(big!.content.startsWith('y'.repeat(1000) + '\n\n[Result cut at 1000 of 5000 characters')).toBe(true);
		// The model saw the cut result too.
		const sent = ollama.requests.at(-1)!.messages.find((m) => m.role === 'tool')!;
		expect(sent.content.length).toBeLessThan(1200);
	});

	it('offers only the tools MCP_TOOLS_ALLOW and MCP_TOOLS_DENY let through', async () => {
		ollama = await ScriptedOllama.start(callsScript([{ name: 'memory__delete_entities', arguments: { entityNames: ['x'] } }]));
		service = await Service.start({
			ollamaUrl: ollama.url,
			env: { MCP_TOOLS_ALLOW: 'memory__*,fetch__fetch', MCP_TOOLS_DENY: 'memory__delete_*' }
		});
		const [denied] = await runOnce(service, 'delete x');
		const offered = ollama.requests[0]!.tools!.map((t) => t.function.name).sort();
		expect(offered).toEqual(
			['fetch__fetch', 'memory__add_observations', 'memory__create_entities', 'memory__create_relations',
				'memory__open_nodes', 'memory__read_graph', 'memory__search_nodes'].sort()
		);
		// A model that calls a tool it was not offered gets an error, and the tool does not run.
		expect(denied).toMatchObject({ status: 'error' });
		expect(denied!.content).toBe('The tool memory__delete_entities is not available.');
	});
});
