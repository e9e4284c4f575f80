import { describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { CheckpointStore } from '../../src/lib/server/sqlite/checkpoint/store';
import { inProcessTests } from '../support/in-process';
import { sentMessage } from '../support/run-events';
import { callsScript } from '../support/scripts';

/**
 * What a run reads of its conversation (issue 26): each read is a round trip on PostgreSQL, so the
 * model, the branch head and whether calls wait for a person are read once, as the run begins
 * (`runs.opening`), not at each step; pending approvals only when a tools step was left open.
 */
function countReads(runtime: Runtime) {
	const { storage } = runtime;
	const spies = {
		opening: vi.spyOn(storage.runs, 'opening'),
		head: vi.spyOn(storage.branches, 'head'),
		model: vi.spyOn(storage.conversations, 'model'),
		pending: vi.spyOn(storage.approvals, 'pending'),
		denyPending: vi.spyOn(storage.approvals, 'denyPending'),
		allowed: vi.spyOn(storage.allowedTools, 'has'),
		runList: vi.spyOn(storage.runs, 'list'),
		// Whether the conversation exists: told by the claim, not asked before it.
		exists: vi.spyOn(storage.conversations, 'exists'),
		// The thread's latest checkpoint: read as a message arrives (calls it leaves open are
		// closed), and that read handed to the graph's first; the thread's messages are not read
		// again at the end of a run that ended by itself (its last step's values are the thread's).
		latest: vi.spyOn(runtime.threads, 'latest'),
		messages: vi.spyOn(runtime.threads, 'messages'),
		// The saver's reads of a thread's latest row, whoever asks (SQLite's store).
		latestRows: vi.spyOn(CheckpointStore.prototype, 'latestRow')
	};
	return {
		counts: () => Object.fromEntries(Object.entries(spies).map(([name, spy]) => [name, spy.mock.calls.length])),
		reset: () => Object.values(spies).forEach((spy) => spy.mockClear())
	};
}

describe('what a run reads, in process', () => {
	const tests = inProcessTests();

	it('a tool-calling turn reads its conversation once: no head, model or approvals read again at each step', async () => {
		const ollama = await tests.model(callsScript([{ name: 'test__peek', arguments: {} }]));
		const { runtime } = await tests.start({ ollamaUrl: ollama.url });
		const reads = countReads(runtime);
		const first = await sentMessage(runtime, 'look');
		expect(first.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(first.events.some((e) => e.event === 'trace' && (e.data as { event?: string }).event === 'result')).toBe(true);
		expect(reads.counts()).toEqual({ opening: 1, head: 0, model: 0, pending: 0, denyPending: 0, allowed: 0, runList: 0, exists: 0, latest: 1, messages: 0, latestRows: 1 });

		reads.reset();
		const second = await sentMessage(runtime, 'look again', first.conversation);
		expect(second.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(reads.counts()).toEqual({ opening: 1, head: 0, model: 0, pending: 0, denyPending: 0, allowed: 0, runList: 0, exists: 0, latest: 1, messages: 0, latestRows: 1 });
		expect(await runtime.storage.conversations.get(first.conversation)).toMatchObject({ status: 'completed', messageCount: 8 });
	});

	it("a message's run reads the thread's latest messages beside its opening, not after it", async () => {
		const ollama = await tests.model(callsScript([{ name: 'test__peek', arguments: {} }]));
		const { runtime } = await tests.start({ ollamaUrl: ollama.url });
		const first = await sentMessage(runtime, 'look');
		const { storage, threads } = runtime;
		// The opening answers only once the messages have been asked for: a run that waited for its
		// opening before reading them would wait for ever.
		let asked!: () => void;
		const messagesAsked = new Promise<void>((resolve) => (asked = resolve));
		const readLatest = threads.latest.bind(threads);
		vi.spyOn(threads, 'latest').mockImplementation((...args) => {
			asked();
			return readLatest(...args);
		});
		const open = storage.runs.opening.bind(storage.runs);
		vi.spyOn(storage.runs, 'opening').mockImplementation(async (conversationId) => {
			await messagesAsked;
			return open(conversationId);
		});
		const second = await sentMessage(runtime, 'look again', first.conversation);
		expect(second.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(await runtime.storage.conversations.get(first.conversation)).toMatchObject({ status: 'completed', messageCount: 8 });
	});

	it("a tools step reads a call's decision beside its journal entry, not after it, and once", async () => {
		const ollama = await tests.model(callsScript([{ name: 'test__peek', arguments: {} }]));
		const { runtime } = await tests.start({ ollamaUrl: ollama.url });
		const { journal, approvals } = runtime.storage;
		// The entry answers only once the decision has been asked for: a step that waited for the
		// entry before asking would wait for ever.
		let asked!: () => void;
		const decisionAsked = new Promise<void>((resolve) => (asked = resolve));
		const decide = approvals.decision.bind(approvals);
		const decisions = vi.spyOn(approvals, 'decision').mockImplementation((...args) => {
			asked();
			return decide(...args);
		});
		const get = journal.get.bind(journal);
		vi.spyOn(journal, 'get').mockImplementation(async (...args) => {
			await decisionAsked;
			return get(...args);
		});
		const run = await sentMessage(runtime, 'look');
		expect(run.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(decisions.mock.calls).toEqual([[run.conversation, expect.any(String), 0]]);
	});

	it('a run that asks a person reads the waiting calls once, for its approval event; the next message denies them', async () => {
		const ollama = await tests.model(callsScript([{ name: 'test__effect', arguments: { item: 'a' } }]));
		const { runtime } = await tests.start({ ollamaUrl: ollama.url });
		const reads = countReads(runtime);
		const asked = await sentMessage(runtime, 'save a');
		expect(asked.events.find((e) => e.event === 'approval')).toMatchObject({
			data: { conversation: asked.conversation, run: asked.run, approvals: [{ tool: 'test__effect', args: { item: 'a' } }] }
		});
		expect(asked.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'waiting' } });
		expect(reads.counts()).toMatchObject({ opening: 1, head: 0, model: 0, pending: 1, denyPending: 0, exists: 0, latest: 1, messages: 0 });

		const [first] = await runtime.storage.approvals.pending(asked.conversation);
		reads.reset();
		const moved = await sentMessage(runtime, 'never mind', asked.conversation);
		expect(moved.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'waiting' } });
		// Closing the calls left open wrote a checkpoint, which moved the head: read once more, then.
		expect(reads.counts()).toMatchObject({ opening: 1, head: 1, model: 0, pending: 1, denyPending: 1, exists: 0 });
		expect(await runtime.storage.approvals.decision(asked.conversation, first!.toolCallId, 0)).toEqual({
			action: 'deny',
			reason: 'the conversation moved on'
		});
	});
});
