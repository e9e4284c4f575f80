import type { ThreadState } from '@langchain/langgraph-sdk';
import { getBranchContext, getMessagesMetadataMap } from '@langchain/langgraph-sdk/ui';
import { describe, expect, it } from 'vitest';
import type { Script } from '../support/scripted-ollama';
import { human, protocolHarness, texts, threadWith } from '../support/protocol-harness';
import { currentTurn } from '../support/scripts';
import { openServiceDb } from '../support/service-db';
import { testMcpConfig } from '../support/test-config';

/**
 * Rollback and forks through the Agent Server protocol, against the built service: a run rolled
 * back (by its cancel, or by the next run's multitask_strategy) leaves the thread at the checkpoint
 * before it, the next message a new branch beside the cancelled one, whose journal stays; a fork
 * from a checkpoint that repeats a write reuses its journalled result. "scan <name>": a read-only
 * call, then an answer held after its first chunk; "store <item> …": a write (approval auto).
 */
const LONG = 'This answer streams slowly, piece by piece, so a test can act while it runs.';

const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const results = after.filter((m) => m.role === 'tool');
	const scan = /^scan (\w+)$/.exec(user);
	if (scan) return results.length ? { content: LONG, hold: scan[1]!, holdAfterChunks: 1 } : { toolCalls: [{ name: 'test__peek', arguments: {} }] };
	const store = /^store (\w+)/.exec(user);
	if (store) return results.length ? { content: `Stored: ${results.at(-1)!.content}` } : { toolCalls: [{ name: 'test__effect', arguments: { item: store[1]! } }] };
	return { content: `You said: ${user}` };
};

type Message = { type: string; id: string; content: unknown };
type Values = { messages: Message[] };

describe('Agent Server protocol: rollback and forks', () => {
	const config = testMcpConfig();
	const harness = protocolHarness(script, config.configDir);

	/** A run on a new thread that has made its read-only call and is held in its answer, after its first chunk. */
	async function scanning(name: string) {
		const thread = await threadWith(harness.client, 'hello');
		const run = await harness.client.runs.create(thread, 'agent', { input: human(`scan ${name}`) });
		// Held once its first chunk has reached a reader, so that chunk is what a cancel keeps.
		for await (const part of harness.client.runs.joinStream(thread, run.run_id, { streamMode: ['messages-tuple'] })) {
			if (part.event === 'messages') break;
		}
		return { thread, run };
	}

	/** The journal's rows of a run, as the service keeps them. */
	async function journalOf(runId: string) {
		const db = await openServiceDb(harness.service.options.dataDir);
		try {
			return await db.all<{ tool: string; outcome: string }>('SELECT tool, outcome FROM tool_calls WHERE run_id = ?', runId);
		} finally {
			await db.close();
		}
	}

	/** The versions the SDK's branch context offers for the message at `index` of the thread's head. */
	async function versionsAt(thread: string, index: number): Promise<string[][]> {
		const history = (await harness.client.threads.getHistory(thread, { limit: 100 })) as ThreadState<Values>[];
		const head = (await harness.client.threads.getState(thread)) as ThreadState<Values>;
		const metadata = getMessagesMetadataMap({
			initialValues: undefined,
			history,
			getMessages: (v: Values) => v.messages as never,
			branchContext: getBranchContext('', history)
		});
		const options = metadata.find((m) => m.messageId === head.values.messages[index]!.id)!.branchOptions ?? [];
		return options.map((b) => texts(getBranchContext(b, history).threadHead!.values));
	}

	it('POST …/cancel?action=rollback: back at the checkpoint before the run, the next message a new branch, the journal kept', async () => {
		const { thread, run } = await scanning('back');
		expect(await journalOf(run.run_id)).toEqual([{ tool: 'test__peek', outcome: 'success' }]);
		await harness.client.runs.cancel(thread, run.run_id, true, 'rollback');
		harness.ollama.release('back');
		expect(await harness.client.runs.get(thread, run.run_id)).toMatchObject({ status: 'interrupted' });
		expect(texts((await harness.client.threads.getState(thread)).values as Values)).toEqual(['human:hello', 'ai:You said: hello']);
		expect((await harness.client.threads.get(thread)).status).toBe('idle');
		// What the cancelled run did happened: its call stays journalled, its branch readable.
		expect(await journalOf(run.run_id)).toEqual([{ tool: 'test__peek', outcome: 'success' }]);

		const next = (await harness.client.runs.wait(thread, 'agent', { input: human('again') })) as Values;
		expect(texts(next)).toEqual(['human:hello', 'ai:You said: hello', 'human:again', 'ai:You said: again']);
		const versions = await versionsAt(thread, 2);
		expect(versions).toHaveLength(2);
		expect(versions).toContainEqual(texts(next));
		expect(versions).toContainEqual(['human:hello', 'ai:You said: hello', 'human:scan back', 'ai:', 'tool:all quiet', `ai:${LONG.slice(0, 4)}`]);
		expect(config.calls().filter((l) => l.startsWith('peek '))).toHaveLength(1);
	});

	it('multitask_strategy rollback: the new run starts from before the cancelled one, as a branch beside it, the journal kept', async () => {
		const { thread, run } = await scanning('over');
		const rolled = (await harness.client.runs.wait(thread, 'agent', { input: human('rather'), multitaskStrategy: 'rollback' })) as Values;
		harness.ollama.release('over');
		expect(await harness.client.runs.get(thread, run.run_id)).toMatchObject({ status: 'interrupted' });
		expect(texts(rolled)).toEqual(['human:hello', 'ai:You said: hello', 'human:rather', 'ai:You said: rather']);
		expect(await journalOf(run.run_id)).toEqual([{ tool: 'test__peek', outcome: 'success' }]);
		const versions = await versionsAt(thread, 2);
		expect(versions).toHaveLength(2);
		expect(versions).toContainEqual(['human:hello', 'ai:You said: hello', 'human:scan over', 'ai:', 'tool:all quiet', `ai:${LONG.slice(0, 4)}`]);
	});

	it('a fork from a checkpoint with an edited message reuses the journalled write it repeats, never making it again', async () => {
		const thread = await threadWith(harness.client, 'store lamp');
		const before = (await harness.client.threads.getState(thread)) as ThreadState<Values>;
		expect(texts(before.values)).toEqual(['human:store lamp', 'ai:', 'tool:saved lamp', 'ai:Stored: saved lamp']);
		const effects = () => config.calls().filter((l) => l.startsWith('effect ') && l.endsWith(' lamp'));
		expect(effects()).toHaveLength(1);
		// The checkpoint before the human message, as agent-chat-ui edits one.
		const history = (await harness.client.threads.getHistory(thread, { limit: 100 })) as ThreadState<Values>[];
		const first = history.filter((s) => s.values.messages.length === 0).at(0)!;
		const edited = (await harness.client.runs.wait(thread, 'agent', { input: human('store lamp today'), checkpoint: first.checkpoint })) as Values;
		expect(texts(edited)).toEqual(['human:store lamp today', 'ai:', 'tool:saved lamp', 'ai:Stored: saved lamp']);
		expect(effects()).toHaveLength(1);
		const detail = (await (await harness.service.fetch(`/api/conversations/${thread}`)).json()) as { messages: { role: string; reusedFrom?: unknown }[] };
		expect(detail.messages.find((m) => m.role === 'tool')!.reusedFrom).toMatchObject({ toolCallId: expect.any(String) });
		expect(await versionsAt(thread, 0)).toHaveLength(2);
	});
});
