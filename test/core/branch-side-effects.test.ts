import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { ConversationDetail, StreamEvent } from '../../src/lib/protocol';
import type { StartRequest } from '../../src/lib/server/runs/start-request';
import type { Runtime } from '../../src/lib/server/runtime';
import { canonicalArgsHash } from '../../src/lib/server/tools/canonical-args';
import { inProcessTests } from '../support/in-process';
import { eventsOfRun, startedRun } from '../support/run-events';
import type { Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';

/** Calls the tools `calls()` names, once per turn, then answers. */
function toolsThenAnswer(calls: () => { name: string; arguments: Record<string, unknown> }[]): Script {
	return (request) =>
		currentTurn(request).after.some((m) => m.role === 'tool') ? { content: 'Done.' } : { toolCalls: calls() };
}

async function run(runtime: Runtime, request: StartRequest): Promise<{ conversation: string; run: string; events: StreamEvent[] }> {
	const started = startedRun(await runtime.runService.start(request));
	return { ...started, events: await eventsOfRun(runtime, started.run) };
}

const detail = async (runtime: Runtime, id: string): Promise<ConversationDetail> => runtime.conversations.detail((await runtime.storage.conversations.get(id))!);
const results = (events: StreamEvent[]) =>
	events.flatMap((e) => (e.event === 'trace' && e.data.event === 'result' ? [e.data.data as Record<string, unknown>] : []));
const effectsIn = (calls: string[]) => calls.filter((l) => l.startsWith('effect'));
const peeksIn = (calls: string[]) => calls.filter((l) => l.startsWith('peek'));

describe('side effects across branches, in process', () => {
	const { model, start } = inProcessTests();

	it('the non-idempotent write takes effect once across a regenerate that repeats it; the read runs again', async () => {
		let args: Record<string, unknown> = { item: 'a', tag: 't' };
		const ollama = await model(toolsThenAnswer(() => [{ name: 'test__effect', arguments: args }, { name: 'test__peek', arguments: {} }]));
		const { runtime, calls } = await start({ ollamaUrl: ollama.url, env: { TOOL_APPROVAL: 'none' } });
		const first = await run(runtime, { kind: 'message', conversation: null, message: 'save a' });
		const { conversation } = first;
		const asked = (await detail(runtime, conversation)).messages[1]!;
		const made = asked.toolCalls![0]!;
		expect(effectsIn(calls())).toHaveLength(1);

		// The same arguments in another key order: the same call.
		args = { tag: 't', item: 'a' };
		const again = await run(runtime, { kind: 'regenerate', conversation, messageId: asked.id });
		expect(effectsIn(calls())).toHaveLength(1);
		expect(peeksIn(calls())).toHaveLength(2);
		const [effect, peek] = results(again.events);
		expect(effect).toMatchObject({ name: 'test__effect', status: 'success', result: 'saved a', reusedFrom: { toolCallId: made.id, messageId: asked.id } });
		expect(peek).not.toHaveProperty('reusedFrom');
		const branch = (await detail(runtime, conversation)).messages;
		expect(branch.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
		expect(branch[1]!.versions).toMatchObject({ index: 1, count: 2 });
		expect(branch[2]).toMatchObject({ name: 'test__effect', content: 'saved a', reusedFrom: { toolCallId: made.id, messageId: asked.id } });
		expect(branch[3]).not.toHaveProperty('reusedFrom');

		// On this branch the write has happened (taken over): asked for again here, it is made again.
		await run(runtime, { kind: 'message', conversation, message: 'save a again' });
		expect(effectsIn(calls())).toHaveLength(2);
		expect(new Set(effectsIn(calls()).map((l) => l.split(' ')[1])).size).toBe(2);
	});

	it('a call with other arguments is a new call: it waits for a decision and is journalled; the repeated one waits for none', async () => {
		let item = 'a';
		const ollama = await model(toolsThenAnswer(() => [{ name: 'test__effect', arguments: { item } }]));
		const { runtime, calls, dataDir } = await start({ ollamaUrl: ollama.url });
		const { conversation } = await run(runtime, { kind: 'message', conversation: null, message: 'save' });
		const [waiting] = (await runtime.storage.approvals.pending(conversation));
		await run(runtime, { kind: 'decide', conversation, decisions: [{ toolCallId: waiting!.toolCallId, action: 'approve' }] });
		const asked = (await detail(runtime, conversation)).messages[1]!;

		const same = await run(runtime, { kind: 'regenerate', conversation, messageId: asked.id });
		expect(same.events.some((e) => e.event === 'approval')).toBe(false);
		expect(same.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(effectsIn(calls())).toEqual([expect.stringMatching(/ a$/)]);

		item = 'b';
		const current = (await detail(runtime, conversation)).messages[1]!;
		const other = await run(runtime, { kind: 'regenerate', conversation, messageId: current.id });
		expect(other.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'waiting' } });
		const [pending] = (await runtime.storage.approvals.pending(conversation));
		expect(pending).toMatchObject({ tool: 'test__effect', args: { item: 'b' } });
		await run(runtime, { kind: 'decide', conversation, decisions: [{ toolCallId: pending!.toolCallId, action: 'approve' }] });
		expect(effectsIn(calls())).toEqual([expect.stringMatching(/ a$/), expect.stringMatching(/ b$/)]);
		expect((await runtime.storage.approvals.pending(conversation))).toEqual([]);
		const db = new Database(path.join(dataDir, 'sophos.db'), { readonly: true });
		const journal = db.prepare('SELECT args_hash, outcome FROM tool_calls WHERE thread_id = ? ORDER BY rowid').all(conversation);
		db.close();
		expect(journal).toEqual([
			{ args_hash: canonicalArgsHash({ item: 'a' }), outcome: 'success' },
			{ args_hash: canonicalArgsHash({ item: 'b' }), outcome: 'success' }
		]);
		const versions = (await detail(runtime, conversation)).messages[1]!.versions;
		expect(versions).toMatchObject({ index: 2, count: 3 });
	});

	it('mcp.json safeToRepeat overrides per tool: a write allowed to repeat runs again, a read told not to is reused', async () => {
		const ollama = await model(toolsThenAnswer(() => [{ name: 'test__effect', arguments: { item: 'a' } }, { name: 'test__peek', arguments: {} }]));
		const { runtime, calls } = await start({
			ollamaUrl: ollama.url,
			env: { TOOL_APPROVAL: 'none' },
			server: { safeToRepeat: { effect: true, peek: false } }
		});
		const { conversation } = await run(runtime, { kind: 'message', conversation: null, message: 'go' });
		const asked = (await detail(runtime, conversation)).messages[1]!;
		const again = await run(runtime, { kind: 'regenerate', conversation, messageId: asked.id });
		expect(effectsIn(calls())).toHaveLength(2);
		expect(peeksIn(calls())).toHaveLength(1);
		expect(results(again.events).map((r) => r.reusedFrom !== undefined)).toEqual([false, true]);
	});
});
