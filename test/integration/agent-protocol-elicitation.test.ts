import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { human, protocolHarness } from '../support/protocol-harness';
import type { Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { testMcpConfig } from '../support/test-config';

/**
 * A tool server's question (MCP elicitation) during a run of the LangGraph Agent Server protocol,
 * read with the SDK's own Client against the built service: the `elicitation` and
 * `elicitation-closed` events reach a `custom`-mode reader as custom frames, and Sophos's answer
 * route takes the answer for the protocol's run. The model calls the test server's `ask` tool, then
 * answers.
 */
const script: Script = (request) =>
	currentTurn(request).after.some((m) => m.role === 'tool') ? { content: 'Thanks.' } : { toolCalls: [{ name: 'test__ask', arguments: {} }] };

type Values = { messages: { type: string; content: unknown }[] };
type Custom = { type: string; conversation: string; run: string; id?: string; action?: string; elicitation?: { id: string; run: string; server: string; tool: string; message: string; mode: string } };

const toolText = (values: Values) => values.messages.find((m) => m.type === 'tool')?.content;

describe('Agent Server protocol: a tool server\'s question', () => {
	const harness = protocolHarness(script, testMcpConfig().configDir);
	const answer = (run: string, id: string, body: unknown) => harness.service.post(`/api/runs/${run}/elicitations/${id}`, body);

	it('reaches a custom-mode reader as custom frames, and the answer route takes the answer for the protocol\'s run', async () => {
		const { client } = harness;
		const thread = randomUUID();
		const parts: { event: string; data: unknown }[] = [];
		let answered: Response | undefined;
		for await (const part of client.runs.stream(thread, 'agent', { input: human('ask me'), ifNotExists: 'create', streamMode: ['custom', 'values'] })) {
			parts.push(part);
			const data = part.data as Custom;
			if (part.event === 'custom' && data.type === 'elicitation') answered = await answer(data.run, data.elicitation!.id, { action: 'accept', content: { name: 'Ada' } });
		}
		const runId = (parts[0]!.data as { run_id: string }).run_id;
		const custom = parts.filter((p) => p.event === 'custom').map((p) => p.data as Custom);
		expect(custom.map((c) => c.type)).toEqual(['elicitation', 'elicitation-closed']);
		const question = custom[0]!.elicitation!;
		expect(custom[0]).toMatchObject({ conversation: thread, run: runId });
		expect(question).toMatchObject({ run: runId, server: 'test', tool: 'test__ask', message: 'Who is asking?', mode: 'form' });
		expect(custom[1]).toEqual({ type: 'elicitation-closed', conversation: thread, run: runId, id: question.id, action: 'accept' });
		expect(answered!.status).toBe(200);
		expect(await answered!.json()).toEqual({ run: runId, id: question.id, action: 'accept' });
		const final = parts.filter((p) => p.event === 'values').at(-1)!.data as Values;
		expect(toolText(final)).toBe('The person answered {"action":"accept","content":{"name":"Ada"}}');
		expect(await client.runs.get(thread, runId)).toMatchObject({ status: 'success' });
		expect((await answer(runId, question.id, { action: 'decline' })).status).toBe(409);
	});

	it('a reader of other modes is sent no custom frame; the question of a background run is found in the conversation and answered', async () => {
		const { client, service } = harness;
		const thread = randomUUID();
		const run = await client.runs.create(thread, 'agent', { input: human('ask again'), ifNotExists: 'create' });
		const events: string[] = [];
		const reading = (async () => {
			for await (const part of client.runs.joinStream(thread, run.run_id, { lastEventId: '-1', streamMode: ['values', 'updates'] })) events.push(part.event);
		})();
		// Once the question is asked (a custom-mode reader hears it), the conversation's detail lists it:
		// where a client without custom frames finds it.
		for await (const part of client.runs.joinStream(thread, run.run_id, { lastEventId: '-1', streamMode: ['custom'] })) if (part.event === 'custom') break;
		const pending = (await (await service.fetch(`/api/conversations/${thread}`)).json()).elicitations as { id: string; run: string }[];
		expect(pending).toHaveLength(1);
		expect(pending[0]!.run).toBe(run.run_id);
		expect((await answer(run.run_id, pending[0]!.id, { action: 'decline' })).status).toBe(200);
		await reading;
		expect(events).not.toContain('custom');
		const values = (await client.threads.getState(thread)).values as Values;
		expect(toolText(values)).toBe('The person answered {"action":"decline"}');
	});
});
