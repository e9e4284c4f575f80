import { randomUUID } from 'node:crypto';
import type { ThreadState } from '@langchain/langgraph-sdk';
import { extractInterrupts, getBranchContext, getMessagesMetadataMap, MessageTupleManager, StreamManager, StreamOrchestrator } from '@langchain/langgraph-sdk/ui';
import { describe, expect, it } from 'vitest';
import { peekSaveHold, protocolHarness } from '../support/protocol-harness';
import { testMcpConfig } from '../support/test-config';

/**
 * The SDK's headless UI state (what useStream and agent-chat-ui render from) driven by the real
 * streams of the built service: StreamManager merging values and messages-tuple, the branch
 * context of a forked edit, and the interrupt an approval pause yields. "peek": a read-only tool
 * call, then an answer; "save <item>": a write that waits for approval.
 */
const script = peekSaveHold();

type Message = { type: string; id: string; content: unknown };
type Values = { messages: Message[]; __interrupt__?: unknown[] };
type Part = { event: string; data: unknown };

const human = (content: string) => ({ messages: [{ type: 'human', content, id: randomUUID() }] });
const texts = (v: Values | null) => (v?.messages ?? []).map((m) => `${m.type}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);

describe('Agent Server protocol: the SDK headless UI state', () => {
	const config = testMcpConfig({});
	const harness = protocolHarness(script, config.configDir);

	/**
	 * One stream through a StreamManager as useStream runs it, from `initial`: the merged values it
	 * ends with, and the message ids it showed at every change.
	 */
	async function merged(parts: AsyncIterable<Part>, initial: Values) {
		const manager = new StreamManager<Values>(new MessageTupleManager(), { throttle: false });
		const snapshots: string[][] = [];
		manager.subscribe(() => snapshots.push((manager.values?.messages ?? []).map((m) => m.id)));
		let failure: unknown;
		await manager.start(
			async () =>
				(async function* () {
					for await (const part of parts) yield part as never;
				})(),
			{
				getMessages: (v) => (v.messages ?? []) as never,
				setMessages: (current, messages) => ({ ...current, messages: messages as never }),
				initialValues: initial,
				callbacks: {},
				onSuccess: () => undefined,
				onError: (e) => {
					failure = e;
				}
			}
		);
		expect(failure).toBeUndefined();
		// A UI merging by id shows each message once, at every step of the stream.
		for (const ids of snapshots) expect(new Set(ids).size).toBe(ids.length);
		return manager.values;
	}

	const metadataOf = (history: ThreadState<Values>[], branch = '') =>
		getMessagesMetadataMap({
			initialValues: undefined,
			history,
			getMessages: (v: Values) => v.messages as never,
			branchContext: getBranchContext(branch, history)
		});

	it('yields an approval pause as the interrupt agent-chat-ui renders, and merges the resumed run without a duplicate', async () => {
		const thread = randomUUID();
		const modes = { streamMode: ['values', 'messages-tuple'] as ('values' | 'messages-tuple')[] };
		const paused = await merged(harness.client.runs.stream(thread, 'agent', { input: human('save ui'), ifNotExists: 'create', ...modes }), { messages: [] });
		const state = (await harness.client.threads.getState(thread)) as ThreadState<Values>;
		const request = {
			action_requests: [expect.objectContaining({ name: 'test__effect', args: { item: 'ui' } })],
			review_configs: [{ action_name: 'test__effect', allowed_decisions: ['approve', 'edit', 'reject'] }]
		};
		// From the stream's last values, and from the thread's tasks alone (a reload), the same interrupt.
		const fromStream = extractInterrupts<Record<string, unknown>>(paused, { isLoading: false, threadState: state, error: undefined });
		expect(fromStream?.value).toMatchObject(request);
		const fromTasks = extractInterrupts<Record<string, unknown>>({ messages: state.values.messages }, { isLoading: false, threadState: state, error: undefined });
		expect(fromTasks).toEqual(fromStream);
		expect(config.calls().filter((l) => l.startsWith('effect '))).toEqual([]);

		// useStream starts a stream from the thread's values and, once it has ended, shows the thread's
		// state read again (its onSuccess answers null): there the interrupt is gone.
		const resumed = await merged(harness.client.runs.stream(thread, 'agent', { command: { resume: { decisions: [{ type: 'approve' }] } }, ...modes }), state.values);
		expect(texts(resumed)).toEqual(['human:save ui', 'ai:', 'tool:saved ui', 'ai:Result: saved ui']);
		const after = (await harness.client.threads.getState(thread)) as ThreadState<Values>;
		expect(texts(after.values)).toEqual(texts(resumed));
		expect(extractInterrupts(after.values, { isLoading: false, threadState: after, error: undefined })).toBeUndefined();
		expect(config.calls().filter((l) => l.startsWith('effect ')).map((l) => l.split(' ').at(-1))).toEqual(['ui']);
	});

	it("shows a forked edit's two versions in the branch context, each branch's messages its own", async () => {
		const thread = randomUUID();
		const modes = { streamMode: ['values', 'messages-tuple'] as ('values' | 'messages-tuple')[] };
		await harness.client.runs.wait(thread, 'agent', { input: human('hello'), ifNotExists: 'create' });
		const first = await merged(harness.client.runs.stream(thread, 'agent', { input: human('peek'), ...modes }), { messages: [] });
		expect(texts(first)).toEqual(['human:hello', 'ai:You said: hello', 'human:peek', 'ai:Looking.', 'tool:all quiet', 'ai:Nothing new.']);

		// As agent-chat-ui edits a message: a run from the checkpoint before the state it was first seen in.
		const history = (await harness.client.threads.getHistory(thread, { limit: 100 })) as ThreadState<Values>[];
		const peek = first!.messages[2]!;
		const seen = metadataOf(history).find((m) => m.messageId === peek.id)!;
		const checkpoint = seen.firstSeenState!.parent_checkpoint!;
		const edited = await merged(harness.client.runs.stream(thread, 'agent', { input: human('instead'), checkpoint, ...modes }), first!);
		expect(texts(edited)).toEqual(['human:hello', 'ai:You said: hello', 'human:instead', 'ai:You said: instead']);

		const forked = (await harness.client.threads.getHistory(thread, { limit: 100 })) as ThreadState<Values>[];
		const context = getBranchContext('', forked);
		expect(texts(context.threadHead!.values)).toEqual(texts(edited));
		const options = metadataOf(forked).find((m) => m.messageId === edited!.messages[2]!.id)!.branchOptions!;
		expect(options).toHaveLength(2);
		// The other option is the first version, with its tool call and answer, as a branch switcher shows it.
		const other = options.find((b) => getBranchContext(b, forked).threadHead?.checkpoint.checkpoint_id !== context.threadHead!.checkpoint.checkpoint_id)!;
		expect(texts(getBranchContext(other, forked).threadHead!.values)).toEqual(texts(first));
	});

	it('opens a waiting thread as useStream does, its question shown from the tasks, and never shows it again once answered', async () => {
		const thread = randomUUID();
		await harness.client.runs.wait(thread, 'agent', { input: human('save orch'), ifNotExists: 'create' });
		// What useStream and agent-chat-ui render from, with the history they fetch.
		const ui = new StreamOrchestrator<Values>(
			{ assistantId: 'agent', fetchStateHistory: true } as never,
			{ getClient: () => harness.client, getAssistantId: () => 'agent', getMessagesKey: () => 'messages' } as never
		);
		const loaded = new Promise<void>((resolve) => {
			const stop = ui.subscribe(() => {
				if (ui.historyData.isLoading || ui.historyData.data === undefined) return;
				stop();
				resolve();
			});
		});
		ui.initThreadId(thread);
		await loaded;
		expect(ui.interrupts).toHaveLength(1);
		expect(ui.interrupts[0]!.value).toMatchObject({ action_requests: [expect.objectContaining({ name: 'test__effect', args: { item: 'orch' } })] });

		// The person approves: at no change of the state while the resumed run streams (before its
		// first values too, when the view still holds the thread's values) is the question shown again.
		const shownWhileLoading: number[] = [];
		const stop = ui.subscribe(() => {
			if (ui.isLoading) shownWhileLoading.push(ui.interrupts.length);
		});
		await ui.submit(undefined as never, { command: { resume: { decisions: [{ type: 'approve' }] } } } as never);
		stop();
		expect(shownWhileLoading.length).toBeGreaterThan(0);
		expect(shownWhileLoading.filter((n) => n > 0)).toEqual([]);
		expect(ui.interrupts).toEqual([]);
		expect(texts(ui.values as Values).at(-1)).toBe('ai:Result: saved orch');
		expect(config.calls().filter((l) => l.startsWith('effect ') && l.endsWith(' orch'))).toHaveLength(1);
		ui.dispose();
	});
});
