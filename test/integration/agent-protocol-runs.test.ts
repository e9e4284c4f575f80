import { randomUUID } from 'node:crypto';
import { MessageTupleManager, StreamManager } from '@langchain/langgraph-sdk/ui';
import { describe, expect, it } from 'vitest';
import { LONG, peekSaveHold, protocolHarness, texts, threadWith } from '../support/protocol-harness';
import { serviceState } from '../support/service';
import { testMcpConfig } from '../support/test-config';

/**
 * The runs of the LangGraph Agent Server protocol driven by the SDK's own Client and its headless
 * UI state, against the built service, the model scripted by the user's message:
 * "peek": a read-only tool call, then an answer; "save <item>": a write that waits for approval;
 * "hold <name>": a long answer held after its first chunk until the test releases it.
 */
const ANSWER = 'All quiet here, nothing to report today.';
const script = peekSaveHold(ANSWER);

type Message = { type: string; id: string; content: unknown; tool_calls?: { id: string; name: string }[]; tool_call_id?: string };
type Values = { messages: Message[]; __interrupt__?: { id: string; value: { action_requests: { name: string; args: Record<string, unknown> }[] } }[] };

const human = (content: string, id?: string) => ({ messages: [{ type: 'human', content, ...(id ? { id } : {}) }] });

describe('Agent Server protocol: runs', () => {
	const config = testMcpConfig({});
	const harness = protocolHarness(script, config.configDir);

	/** A background run on a new thread, held in its answer. */
	async function heldRun(name: string) {
		const thread = await threadWith(harness.client, 'hello');
		const run = await harness.client.runs.create(thread, 'agent', { input: human(`hold ${name}`) });
		await harness.ollama.held(name);
		return { thread, run };
	}

	it('streams a tool-calling run in values, messages-tuple and updates, which the SDK merges without a duplicate', async () => {
		const thread = randomUUID();
		const events: { event: string; data: unknown }[] = [];
		const manager = new StreamManager<Values>(new MessageTupleManager(), { throttle: false });
		const snapshots: string[][] = [];
		manager.subscribe(() => {
			const messages = (manager.values?.messages ?? []) as Message[];
			snapshots.push(messages.map((m) => m.id));
		});
		let failure: unknown;
		await manager.start(
			async () =>
				(async function* () {
					for await (const part of harness.client.runs.stream(thread, 'agent', {
						input: human('peek'),
						ifNotExists: 'create',
						streamMode: ['values', 'messages-tuple', 'updates']
					})) {
						events.push(part);
						yield part as never;
					}
				})(),
			{
				getMessages: (v) => (v.messages ?? []) as never,
				setMessages: (current, messages) => ({ ...current, messages: messages as never }),
				initialValues: { messages: [] },
				callbacks: {},
				onSuccess: () => undefined,
				onError: (e) => {
					failure = e;
				}
			}
		);
		expect(failure).toBeUndefined();
		expect(events[0]).toMatchObject({ event: 'metadata', data: { attempt: 1 } });
		const runId = (events[0]!.data as { run_id: string }).run_id;
		expect(events.map((e) => e.event)).not.toContain('end');
		const final = events.filter((e) => e.event === 'values').at(-1)!.data as Values;
		expect(texts(final)).toEqual(['human:peek', 'ai:Looking.', 'tool:all quiet', `ai:${ANSWER}`]);
		expect(final.messages[1]!.tool_calls).toMatchObject([{ name: 'test__peek' }]);
		expect(final.messages[2]!.tool_call_id).toBe(final.messages[1]!.tool_calls![0]!.id);
		// Every streamed chunk names a message the next values hold, so merging by id finds it.
		const chunkIds = new Set(events.filter((e) => e.event === 'messages').map((e) => (e.data as [{ id: string }])[0].id));
		expect(chunkIds.size).toBe(2);
		for (const id of chunkIds) expect(final.messages.map((m) => m.id)).toContain(id);
		const streamed = events
			.filter((e) => e.event === 'messages')
			.map((e) => (e.data as [{ id: string; content: string }])[0])
			.filter((c) => c.id === final.messages[3]!.id)
			.map((c) => c.content)
			.join('');
		expect(streamed).toBe(ANSWER);
		expect(events.filter((e) => e.event === 'updates').map((e) => Object.keys(e.data as object)[0])).toEqual(['agent', 'tools', 'agent']);
		for (const ids of snapshots) expect(new Set(ids).size).toBe(ids.length);
		expect(((manager.values as Values).messages as Message[]).map((m) => m.id)).toEqual(final.messages.map((m) => m.id));
		const run = await harness.client.runs.get(thread, runId);
		expect(run).toMatchObject({ run_id: runId, thread_id: thread, status: 'success' });
		expect(await harness.client.runs.list(thread)).toMatchObject([{ run_id: runId }]);
	});

	it('streams a background run joined twice from -1, each reader getting the whole answer once', async () => {
		const { thread, run } = await heldRun('join');
		const attached: Promise<void>[] = [];
		const join = () => {
			let opened!: () => void;
			attached.push(new Promise<void>((resolve) => (opened = resolve)));
			return (async () => {
				const chunks: string[] = [];
				let first: unknown;
				for await (const part of harness.client.runs.joinStream(thread, run.run_id, { lastEventId: '-1', streamMode: ['messages-tuple', 'values'] })) {
					first ??= part;
					opened();
					if (part.event === 'messages') chunks.push((part.data as [{ content: string }])[0].content);
				}
				return { first, text: chunks.join('') };
			})();
		};
		const readers = [join(), join()];
		// A reader is attached to the run's log before its response's first byte (metadata) is sent.
		await Promise.all(attached);
		harness.ollama.release('join');
		const [a, b] = (await Promise.all(readers)) as [{ first: unknown; text: string }, { first: unknown; text: string }];
		expect(a.first).toMatchObject({ event: 'metadata', data: { run_id: run.run_id } });
		expect(a.text).toBe(LONG);
		expect(b.text).toBe(LONG);
		expect(await harness.client.runs.join(thread, run.run_id)).toMatchObject({ messages: expect.arrayContaining([expect.objectContaining({ content: LONG })]) });
	});

	it('cancels a run: it ends interrupted, keeping what it streamed', async () => {
		const { thread, run } = await heldRun('cancel');
		// Cancelled once its first chunk has reached a reader, so that chunk is what the run streamed.
		for await (const part of harness.client.runs.joinStream(thread, run.run_id, { streamMode: ['messages-tuple'] })) {
			if (part.event === 'messages') break;
		}
		await harness.client.runs.cancel(thread, run.run_id, true);
		expect(await harness.client.runs.get(thread, run.run_id)).toMatchObject({ status: 'interrupted' });
		const state = (await (await harness.service.fetch(`/api/conversations/${thread}`)).json()) as { messages: { content: string }[] };
		expect(state.messages.at(-1)!.content).toBe(LONG.slice(0, 4));
		harness.ollama.release('cancel');
	});

	it('refuses a second run with reject (409), queues it with enqueue, interrupts or rolls back the first', async () => {
		const { thread, run } = await heldRun('busy');
		const rejected = await harness.service.post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: human('again') });
		expect(rejected.status).toBe(409);
		const queued = await harness.client.runs.create(thread, 'agent', { input: human('queued'), multitaskStrategy: 'enqueue' });
		expect(queued.status).toBe('pending');
		expect((await harness.client.runs.list(thread)).map((r) => r.status)).toEqual(['pending', 'running', 'success']);
		harness.ollama.release('busy');
		expect(texts((await harness.client.runs.join(thread, queued.run_id)) as Values).slice(-2)).toEqual(['human:queued', 'ai:You said: queued']);
		expect(await harness.client.runs.get(thread, run.run_id)).toMatchObject({ status: 'success' });
		expect(await harness.client.runs.get(thread, queued.run_id)).toMatchObject({ status: 'success' });

		const second = await heldRun('first');
		const interrupting = await harness.client.runs.wait(second.thread, 'agent', { input: human('instead'), multitaskStrategy: 'interrupt' });
		expect(await harness.client.runs.get(second.thread, second.run.run_id)).toMatchObject({ status: 'interrupted' });
		expect(texts(interrupting as Values).slice(-2)).toEqual(['human:instead', 'ai:You said: instead']);
		harness.ollama.release('first');

		const third = await heldRun('rolled');
		const rolled = (await harness.client.runs.wait(third.thread, 'agent', { input: human('rather'), multitaskStrategy: 'rollback' })) as Values;
		expect(await harness.client.runs.get(third.thread, third.run.run_id)).toMatchObject({ status: 'interrupted' });
		// The rolled-back run's message and partial answer are on a branch of their own, not the thread's.
		expect(texts(rolled)).toEqual(['human:hello', 'ai:You said: hello', 'human:rather', 'ai:You said: rather']);
		harness.ollama.release('rolled');
	});

	it('makes one run of a retried POST with the same message id', async () => {
		const thread = await threadWith(harness.client, 'hello');
		const body = { assistant_id: 'agent', input: human('once', 'client-message-1') };
		const first = await (await harness.service.post(`/threads/${thread}/runs/wait`, body)).json();
		const again = await harness.service.post(`/threads/${thread}/runs`, body);
		expect(again.status).toBe(200);
		const run = (await again.json()) as { run_id: string; status: string };
		expect(run.status).toBe('success');
		const runs = await harness.client.runs.list(thread);
		expect(runs).toHaveLength(2);
		expect(runs[0]!.run_id).toBe(run.run_id);
		expect(texts(first as Values).filter((t) => t === 'human:once')).toHaveLength(1);
	});

	it('resumes an approval with approve, edit and reject, the journal counting each effect once', async () => {
		const decide = async (item: string, decision: object) => {
			const thread = await threadWith(harness.client, `save ${item}`);
			const state = await (await harness.service.fetch(`/api/conversations/${thread}`)).json();
			expect(state.conversation.status).toBe('waiting');
			const result = (await harness.client.runs.wait(thread, 'agent', { command: { resume: { decisions: [decision] } } })) as Values;
			return result.messages.at(-1)!.content;
		};
		expect(await decide('a', { type: 'approve' })).toBe('Result: saved a');
		expect(await decide('b', { type: 'edit', edited_action: { name: 'test__effect', args: { item: 'bb' } } })).toBe('Result: saved bb');
		expect(String(await decide('c', { type: 'reject', message: 'not now' }))).toMatch(/^Result: .*not now/);
		const effects = config.calls().filter((l) => l.startsWith('effect '));
		expect(effects.map((l) => l.split(' ').at(-1))).toEqual(['a', 'bb']);
	});

	it('shows a pause as __interrupt__, refuses a stale interrupt (409), and goto __end__ denies every call', async () => {
		const thread = randomUUID();
		const values = (await harness.client.runs.wait(thread, 'agent', { input: human('save d'), ifNotExists: 'create' })) as Values;
		const interrupt = values.__interrupt__![0]!;
		expect(interrupt.value.action_requests).toEqual([expect.objectContaining({ name: 'test__effect', args: { item: 'd' } })]);
		const before = await serviceState(harness.service, [thread]);
		const stale = await harness.service.post(`/threads/${thread}/runs/wait`, {
			assistant_id: 'agent',
			command: { resume: { 'not-this-one': { decisions: [{ type: 'approve' }] } } }
		});
		expect(stale.status).toBe(409);
		expect(await serviceState(harness.service, [thread])).toBe(before);
		const ended = (await harness.client.runs.wait(thread, 'agent', { command: { goto: '__end__' } })) as Values;
		expect(ended.__interrupt__).toBeUndefined();
		expect(ended.messages.find((m) => m.type === 'tool')).toMatchObject({ type: 'tool' });
		expect(config.calls().some((l) => l.endsWith(' d'))).toBe(false);
	});

	it('reads a client-made tool message for a waiting call as the conversation moving on, never as its result', async () => {
		const thread = randomUUID();
		const values = (await harness.client.runs.wait(thread, 'agent', { input: human('save e'), ifNotExists: 'create' })) as Values;
		const call = values.messages.at(-1)!.tool_calls![0]!;
		const after = (await harness.client.runs.wait(thread, 'agent', {
			input: {
				messages: [
					{ type: 'tool', tool_call_id: call.id, name: call.name, content: 'Successfully handled tool call.' },
					{ type: 'human', content: 'never mind' }
				]
			}
		})) as Values;
		const tool = after.messages.find((m) => m.type === 'tool')!;
		expect(tool.content).not.toBe('Successfully handled tool call.');
		expect(texts(after).slice(-2)).toEqual(['human:never mind', 'ai:You said: never mind']);
		expect(config.calls().some((l) => l.endsWith(' e'))).toBe(false);
	});

	it('edits from a checkpoint: a new branch from before the message, the old one kept', async () => {
		const thread = await threadWith(harness.client, 'first words');
		const lines = (await (await harness.service.fetch(`/api/conversations/${thread}/export?format=jsonl`)).text()).trim().split('\n').map((l) => JSON.parse(l));
		const before = lines.find((l) => l.message_count === 0 && l.next.includes('__start__')) ?? lines.find((l) => l.message_count === 0);
		const edited = (await harness.client.runs.wait(thread, 'agent', { input: human('second words'), checkpoint: { checkpoint_id: before.checkpoint_id, checkpoint_ns: '', checkpoint_map: null } })) as Values;
		expect(texts(edited)).toEqual(['human:second words', 'ai:You said: second words']);
		const detail = await (await harness.service.fetch(`/api/conversations/${thread}`)).json();
		expect(detail.messages[0].versions).toMatchObject({ count: 2, index: 1 });
	});

	it('answers every malformed run request with a 422 naming the field, and changes nothing', async () => {
		const thread = await threadWith(harness.client, 'hello');
		const run = (await harness.client.runs.list(thread))[0]!;
		const before = await serviceState(harness.service, [thread]);
		const post = (path: string, body: unknown) => harness.service.post(path, body);
		const cases: [Promise<Response>, number, RegExp][] = [
			[post(`/threads/${thread}/runs`, { input: human('x') }), 422, /assistant_id/],
			[post(`/threads/${thread}/runs`, { assistant_id: 'other', input: human('x') }), 422, /assistant_id/],
			[post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: human('x'), stream_mode: 'debug' }), 422, /stream_mode/],
			[post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: human('x'), multitask_strategy: 'later' }), 422, /multitask_strategy/],
			[post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: human('x'), speed: 1 }), 422, /speed/],
			[post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { messages: [{ type: 'human', content: 7 }] } }), 422, /input\.messages/],
			[post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: { messages: [{ type: 'human', content: [{ type: 'image_url', image_url: 'x' }] }] } }), 422, /image_url/],
			[post(`/threads/${thread}/runs/stream`, { assistant_id: 'agent', input: human('x'), command: { resume: { decisions: [{ type: 'approve' }] } } }), 422, /command/],
			[post(`/threads/${thread}/runs/wait`, { assistant_id: 'agent', command: { resume: { decisions: [{ type: 'maybe' }] } } }), 422, /command\.resume/],
			[post(`/threads/${thread}/runs`, { assistant_id: 'agent', input: human('x'), interrupt_before: ['tools'] }), 501, /interrupt_before/],
			[post(`/threads/not-a-uuid/runs`, { assistant_id: 'agent', input: human('x') }), 422, /thread_id/],
			[post(`/threads/${randomUUID()}/runs`, { assistant_id: 'agent', input: human('x') }), 404, /Thread/],
			[post(`/runs/stream`, { assistant_id: 'agent' }), 422, /input/],
			[post(`/runs/wait`, { assistant_id: 'agent', input: human(''), stream_mode: ['values'] }), 422, /content/],
			[harness.service.fetch(`/threads/${thread}/runs?limit=0`), 422, /limit/],
			[harness.service.fetch(`/threads/${thread}/runs/nope`), 422, /run_id/],
			[harness.service.fetch(`/threads/${thread}/runs/${randomUUID()}`), 404, /Run/],
			[harness.service.fetch(`/threads/${thread}/runs/${run.run_id}/stream?stream_mode=debug`), 422, /stream_mode/],
			[harness.service.fetch(`/threads/${thread}/runs/nope/join`), 422, /run_id/],
			[harness.service.fetch(`/threads/${thread}/runs/${run.run_id}/cancel?action=undo`, { method: 'POST' }), 422, /action/],
			[harness.service.fetch(`/threads/${thread}/runs/${run.run_id}/cancel?wait=maybe`, { method: 'POST' }), 422, /wait/],
			[post(`/runs`, { assistant_id: 'agent', input: human('x') }), 501, /NOT_IMPLEMENTED/],
			[post(`/runs/batch`, [{ assistant_id: 'agent', input: human('x') }]), 501, /NOT_IMPLEMENTED/],
			[harness.service.fetch(`/runs/${run.run_id}/stream`), 501, /NOT_IMPLEMENTED/],
			[harness.service.fetch(`/threads/${thread}/runs/${run.run_id}`, { method: 'DELETE' }), 501, /NOT_IMPLEMENTED/]
		];
		for (const [response, status, field] of cases) {
			const res = await response;
			const body = await res.text();
			expect({ status: res.status, body }).toMatchObject({ status, body: expect.stringMatching(field) });
		}
		expect(await serviceState(harness.service, [thread])).toBe(before);
	});
});
