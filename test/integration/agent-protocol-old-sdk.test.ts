import { randomUUID } from 'node:crypto';
import { Client } from 'langgraph-sdk-1-0';
import { describe, expect, it } from 'vitest';
import { human, LONG, peekSaveHold, protocolHarness, texts } from '../support/protocol-harness';
import { testMcpConfig } from '../support/test-config';

/**
 * The oldest `@langchain/langgraph-sdk` agent-chat-ui still resolves (its package.json asks for
 * ^1.0.0: 1.0.0) drives runs against the built service: a tool-calling run streamed, a background
 * run joined, an approval resumed. "peek": a read-only call; "save <item>": a write that waits for
 * approval; "hold <name>": an answer held after its first chunk.
 */
const script = peekSaveHold();

type Message = { type: string; id: string; content: unknown; tool_calls?: { id: string; name: string }[]; tool_call_id?: string };
type Values = { messages: Message[]; __interrupt__?: { id: string; value: { action_requests: { name: string }[] } }[] };

describe('Agent Server protocol: runs through @langchain/langgraph-sdk 1.0.0', () => {
	const config = testMcpConfig({});
	const harness = protocolHarness(script, config.configDir, (apiUrl) => new Client({ apiUrl }));

	it('streams a tool-calling run in values and messages-tuple', async () => {
		const thread = randomUUID();
		const events: { event: string; data: unknown }[] = [];
		for await (const part of harness.client.runs.stream(thread, 'agent', { input: human('peek'), ifNotExists: 'create', streamMode: ['values', 'messages-tuple'] })) {
			events.push(part);
		}
		expect(events[0]).toMatchObject({ event: 'metadata', data: { attempt: 1 } });
		const final = events.filter((e) => e.event === 'values').at(-1)!.data as Values;
		expect(texts(final)).toEqual(['human:peek', 'ai:Looking.', 'tool:all quiet', 'ai:Nothing new.']);
		expect(final.messages[2]!.tool_call_id).toBe(final.messages[1]!.tool_calls![0]!.id);
		const chunkIds = new Set(events.filter((e) => e.event === 'messages').map((e) => (e.data as [{ id: string }])[0].id));
		for (const id of chunkIds) expect(final.messages.map((m) => m.id)).toContain(id);
		const runId = (events[0]!.data as { run_id: string }).run_id;
		expect(await harness.client.runs.get(thread, runId)).toMatchObject({ status: 'success' });
	});

	it('joins a background run from its first event, and waits for its end', async () => {
		const thread = randomUUID();
		await harness.client.runs.wait(thread, 'agent', { input: human('hello'), ifNotExists: 'create' });
		const run = await harness.client.runs.create(thread, 'agent', { input: human('hold old') });
		await harness.ollama.held('old');
		let attached!: () => void;
		const opened = new Promise<void>((resolve) => (attached = resolve));
		const joined = (async () => {
			const chunks: string[] = [];
			for await (const part of harness.client.runs.joinStream(thread, run.run_id, { lastEventId: '-1', streamMode: ['messages-tuple'] })) {
				attached();
				if (part.event === 'messages') chunks.push((part.data as [{ content: string }])[0].content);
			}
			return chunks.join('');
		})();
		// A refused join ends the wait too, failing at once.
		await Promise.race([opened, joined]);
		harness.ollama.release('old');
		expect(await joined).toBe(LONG);
		expect(texts((await harness.client.runs.join(thread, run.run_id)) as Values).at(-1)).toBe(`ai:${LONG}`);
		expect(await harness.client.runs.get(thread, run.run_id)).toMatchObject({ status: 'success' });
	});

	it('resumes an approval with a Command, the effect made once', async () => {
		const thread = randomUUID();
		const paused = (await harness.client.runs.wait(thread, 'agent', { input: human('save old'), ifNotExists: 'create' })) as Values;
		expect(paused.__interrupt__![0]!.value.action_requests).toMatchObject([{ name: 'test__effect' }]);
		expect((await harness.client.threads.get(thread)).status).toBe('interrupted');
		const resumed = (await harness.client.runs.wait(thread, 'agent', { command: { resume: { decisions: [{ type: 'approve' }] } } })) as Values;
		expect(texts(resumed).slice(-2)).toEqual(['tool:saved old', 'ai:Result: saved old']);
		expect(resumed.__interrupt__).toBeUndefined();
		expect((await harness.client.threads.get(thread)).status).toBe('idle');
		expect(config.calls().filter((l) => l.startsWith('effect '))).toHaveLength(1);
	});
});
