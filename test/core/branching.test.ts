import { describe, expect, it } from 'vitest';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ConversationDetail, MessageDto } from '../../src/lib/protocol';
import { checkpointLineage } from '../../src/lib/server/sqlite/checkpoint';
import type { StartRequest } from '../../src/lib/server/runs/start-request';
import type { Runtime } from '../../src/lib/server/runtime';
import { inProcessTests } from '../support/in-process';
import { startedRun, tokensPublished } from '../support/run-events';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';

/** Answers every message with its number and the user's words, so each version reads differently. */
function numberedAnswers(): Script {
	let n = 0;
	return (request) => ({ content: `Answer ${++n} to ${currentTurn(request).user}.` });
}

/** Starts a run and waits until its outcome is recorded (and any queued follower has started). */
async function run(runtime: Runtime, request: StartRequest): Promise<{ conversation: string; run: string }> {
	const started = startedRun(await runtime.runService.start(request));
	await (runtime.runService.registry.getById(started.run)?.done ?? Promise.resolve());
	return started;
}

const send = (runtime: Runtime, conversation: string | null, message: string) =>
	run(runtime, { kind: 'message', conversation, message });

const detail = async (runtime: Runtime, id: string): Promise<ConversationDetail> => runtime.conversations.detail((await runtime.storage.conversations.get(id))!);
const said = (messages: MessageDto[]) => messages.map((m) => `${m.role}: ${m.content}`);
/** Makes the branch holding `messageId` active and says what the conversation now shows. */
async function switched(runtime: Runtime, conversation: string, messageId: string): Promise<string[]> {
	await runtime.conversations.switchBranch(conversation, messageId);
	return said((await detail(runtime, conversation)).messages);
}
/** What the model was sent last, system prompt left out. */
const lastPrompt = (ollama: ScriptedOllama) => ollama.requests.at(-1)!.messages.slice(1).map((m) => `${m.role}: ${m.content}`);

describe('branching, in process', () => {
	const { model, start } = inProcessTests();

	it('an edit of the first message starts a branch from before it; the old version stays a branch', async () => {
		const ollama = await model(numberedAnswers());
		const { runtime } = await start({ ollamaUrl: ollama.url });
		const { conversation } = await send(runtime, null, 'one');
		await send(runtime, conversation, 'two');
		const [one] = (await detail(runtime, conversation)).messages;

		const edit = await run(runtime, { kind: 'edit', conversation, editOf: one!.id, message: 'uno' });
		expect(lastPrompt(ollama)).toEqual(['user: uno']);
		expect((await runtime.storage.runs.get(edit.run))).toMatchObject({ trigger: 'edit', input: 'uno', status: 'completed' });
		const edited = await detail(runtime, conversation);
		expect(said(edited.messages)).toEqual(['user: uno', 'assistant: Answer 3 to uno.']);
		expect(edited.messages[0]!.id).toBe(edit.run);
		expect(edited.messages[0]!.versions).toEqual({ index: 1, count: 2, ids: [one!.id, edit.run] });
		expect(edited.conversation.messageCount).toBe(2);
		expect(edited.resumable).toBe(false);

		await runtime.conversations.switchBranch(conversation, one!.id);
		const back = await detail(runtime, conversation);
		expect(said(back.messages)).toEqual(['user: one', 'assistant: Answer 1 to one.', 'user: two', 'assistant: Answer 2 to two.']);
		expect(back.messages[0]!.versions).toEqual({ index: 0, count: 2, ids: [one!.id, edit.run] });
		expect(back.conversation.messageCount).toBe(4);
	});

	it('an edit at a middle turn keeps the turns before it and sends the model only those', async () => {
		const ollama = await model(numberedAnswers());
		const { runtime } = await start({ ollamaUrl: ollama.url });
		const { conversation } = await send(runtime, null, 'one');
		await send(runtime, conversation, 'two');
		await send(runtime, conversation, 'three');
		const two = (await detail(runtime, conversation)).messages[2]!;

		const edit = await run(runtime, { kind: 'edit', conversation, editOf: two.id, message: 'dos' });
		expect(lastPrompt(ollama)).toEqual(['user: one', 'assistant: Answer 1 to one.', 'user: dos']);
		const { messages } = await detail(runtime, conversation);
		expect(said(messages)).toEqual(['user: one', 'assistant: Answer 1 to one.', 'user: dos', 'assistant: Answer 4 to dos.']);
		expect(messages.map((m) => m.versions?.count ?? 1)).toEqual([1, 1, 2, 1]);
		expect(messages[2]!.versions!.ids).toEqual([two.id, edit.run]);
	});

	it('regenerate runs the answer\'s step again from the checkpoint before it; versions keep their order', async () => {
		const ollama = await model(numberedAnswers());
		const { runtime } = await start({ ollamaUrl: ollama.url });
		const { conversation } = await send(runtime, null, 'one');
		await send(runtime, conversation, 'two');
		const first = (await detail(runtime, conversation)).messages[3]!;

		const again = await run(runtime, { kind: 'regenerate', conversation, messageId: first.id });
		expect((await runtime.storage.runs.get(again.run))).toMatchObject({ trigger: 'regenerate', input: null, status: 'completed' });
		expect(lastPrompt(ollama)).toEqual(['user: one', 'assistant: Answer 1 to one.', 'user: two']);
		const second = (await detail(runtime, conversation)).messages;
		expect(said(second)).toEqual(['user: one', 'assistant: Answer 1 to one.', 'user: two', 'assistant: Answer 3 to two.']);
		await run(runtime, { kind: 'regenerate', conversation, messageId: second[3]!.id });
		const third = (await detail(runtime, conversation)).messages;
		expect(third[3]).toMatchObject({ content: 'Answer 4 to two.', versions: { index: 2, count: 3, ids: [first.id, second[3]!.id, third[3]!.id] } });

		await runtime.conversations.switchBranch(conversation, first.id);
		const back = (await detail(runtime, conversation)).messages;
		expect(back[3]).toMatchObject({ id: first.id, content: 'Answer 2 to two.', versions: { index: 0, count: 3 } });
		expect(back[3]!.versions!.ids).toEqual(third[3]!.versions!.ids);
	});

	it('the active branch survives a restart, and a message sent on an older branch continues that branch', async () => {
		const ollama = await model(numberedAnswers());
		const first = await start({ ollamaUrl: ollama.url });
		const { conversation } = await send(first.runtime, null, 'one');
		const [one] = (await detail(first.runtime, conversation)).messages;
		const edit = await run(first.runtime, { kind: 'edit', conversation, editOf: one!.id, message: 'uno' });
		await first.runtime.conversations.switchBranch(conversation, one!.id);
		await first.runtime.close();

		const second = await start({ ollamaUrl: ollama.url, dataDir: first.dataDir });
		expect(said((await detail(second.runtime, conversation)).messages)).toEqual(['user: one', 'assistant: Answer 1 to one.']);
		await send(second.runtime, conversation, 'two');
		expect(lastPrompt(ollama)).toEqual(['user: one', 'assistant: Answer 1 to one.', 'user: two']);
		const continued = await detail(second.runtime, conversation);
		expect(said(continued.messages)).toEqual(['user: one', 'assistant: Answer 1 to one.', 'user: two', 'assistant: Answer 3 to two.']);
		expect(continued.messages[0]!.versions).toEqual({ index: 0, count: 2, ids: [one!.id, edit.run] });
		expect(continued.resumable).toBe(false);

		expect(await switched(second.runtime, conversation, edit.run)).toEqual(['user: uno', 'assistant: Answer 2 to uno.']);
		expect(await second.runtime.conversations.switchBranch(conversation, 'no-such-message')).toEqual({ refused: 'message-not-in-any-branch' });
	});

	it('an edit or regenerate follows the busy rules: refused, queued, or interrupting; a switch waits for the run too', async () => {
		const numbered = numberedAnswers();
		let hold: string | null = null;
		const ollama = await model((request) => ({ ...numbered(request), ...(hold ? { hold, holdAfterChunks: 1 } : {}) }));
		const { runtime } = await start({ ollamaUrl: ollama.url });
		const { conversation } = await send(runtime, null, 'one');
		const [one] = (await detail(runtime, conversation)).messages;

		hold = 'first';
		const busy = startedRun(await runtime.runService.start({ kind: 'message', conversation, message: 'two' }));
		await ollama.held('first');
		hold = null;
		expect(await runtime.runService.start({ kind: 'edit', conversation, editOf: one!.id, message: 'uno' })).toEqual({ refused: 'busy' });
		expect(await runtime.conversations.switchBranch(conversation, one!.id)).toEqual({ refused: 'switch-while-running' });
		const queued = await runtime.runService.start({ kind: 'edit', conversation, editOf: one!.id, message: 'uno', ifBusy: 'enqueue' });
		expect(queued).toEqual({ conversation, queued: expect.any(String) });
		expect((await detail(runtime, conversation)).queue).toEqual([
			{ id: (queued as { queued: string }).queued, message: 'uno', createdAt: expect.any(String), editOf: one!.id }
		]);
		ollama.release('first');
		await runtime.runService.registry.getById(busy.run)!.done;
		const edit = runtime.runService.registry.get(conversation)!;
		await edit.done;
		expect((await runtime.storage.runs.get(edit.id))).toMatchObject({ trigger: 'edit', input: 'uno', status: 'completed' });
		const edited = await detail(runtime, conversation);
		expect(said(edited.messages)).toEqual(['user: uno', 'assistant: Answer 3 to uno.']);
		expect(edited.queue).toEqual([]);

		hold = 'second';
		const cut = startedRun(await runtime.runService.start({ kind: 'message', conversation, message: 'three' }));
		await ollama.held('second');
		await tokensPublished(runtime, cut.run, 1);
		hold = null;
		const answer = edited.messages[1]!;
		const again = await run(runtime, { kind: 'regenerate', conversation, messageId: answer.id, ifBusy: 'interrupt' });
		expect((await runtime.storage.runs.get(cut.run))?.status).toBe('cancelled');
		expect((await runtime.storage.runs.get(again.run))).toMatchObject({ trigger: 'regenerate', status: 'completed' });
		const regenerated = (await detail(runtime, conversation)).messages;
		expect(said(regenerated)).toEqual(['user: uno', 'assistant: Answer 5 to uno.']);
		expect(regenerated[1]!.versions).toEqual({ index: 1, count: 2, ids: [answer.id, regenerated[1]!.id] });
		// The interrupted run's partial answer stays on the branch it was cut short on.
		expect(await switched(runtime, conversation, answer.id)).toEqual([
			'user: uno',
			'assistant: Answer 3 to uno.',
			'user: three',
			'assistant: Answ'
		]);
	});

	it('a branch run stopped by a shutdown resumes on its branch in the next process', async () => {
		const script: Script = (request) => {
			const { user, after } = currentTurn(request);
			if (user !== 'uno') return { content: `Answer to ${user}.` };
			return after.some((m) => m.role === 'tool')
				? { content: 'Finished.' }
				: { content: 'Let me look.', toolCalls: [{ name: 'test__peek', arguments: {} }], hold: 'look', holdAfterChunks: 1 };
		};
		const ollama = await model(script);
		const first = await start({ ollamaUrl: ollama.url });
		const { conversation } = await send(first.runtime, null, 'one');
		const [one] = (await detail(first.runtime, conversation)).messages;
		const edit = startedRun(await first.runtime.runService.start({ kind: 'edit', conversation, editOf: one!.id, message: 'uno' }));
		await ollama.held('look');
		const stopping = first.runtime.runService.stopAll(60_000);
		ollama.release('look');
		await stopping;
		expect((await first.runtime.storage.runs.get(edit.run))).toMatchObject({ status: 'interrupted', error: { code: 'SHUTDOWN' } });
		expect(await first.runtime.threadWork(conversation)).toEqual({ kind: 'unfinished', pending: ['tools'], lostInput: null });
		await first.runtime.close();

		const second = await start({ ollamaUrl: ollama.url, dataDir: first.dataDir });
		const interrupted = await detail(second.runtime, conversation);
		expect(interrupted.resumable).toBe(true);
		expect(said(interrupted.messages)).toEqual(['user: uno', 'assistant: Let me look.']);
		await run(second.runtime, { kind: 'resume', conversation });
		expect(second.calls()).toHaveLength(1);
		const resumed = await detail(second.runtime, conversation);
		expect(said(resumed.messages)).toEqual(['user: uno', 'assistant: Let me look.', 'tool: all quiet', 'assistant: Finished.']);
		expect(resumed.messages[0]!.versions).toMatchObject({ index: 1, count: 2 });
		expect(resumed.resumable).toBe(false);
	});

	it('retention on a branched thread keeps every branch readable; a branch point it pruned is refused', async () => {
		const ollama = await model(numberedAnswers());
		const { runtime, dataDir } = await start({ ollamaUrl: ollama.url, env: { CHECKPOINT_RETENTION: 'latest:3' } });
		const { conversation } = await send(runtime, null, 'one');
		await send(runtime, conversation, 'two');
		const [one, , two, second] = (await detail(runtime, conversation)).messages;
		const db = new Database(path.join(dataDir, 'sophos.db'), { readonly: true });
		const stored = () => checkpointLineage(db, conversation).length;
		// One branch: its newest three (the second turn's input, its message, its answer).
		expect(stored()).toBe(3);

		const edit = await run(runtime, { kind: 'edit', conversation, editOf: two!.id, message: 'dos' });
		// Two branches, three each: the older one was not pruned away.
		expect(stored()).toBe(6);
		expect((await detail(runtime, conversation)).messages[2]!.versions).toEqual({ index: 1, count: 2, ids: [two!.id, edit.run] });
		await runtime.conversations.switchBranch(conversation, two!.id);
		const old = await detail(runtime, conversation);
		expect(said(old.messages)).toEqual(['user: one', 'assistant: Answer 1 to one.', 'user: two', 'assistant: Answer 2 to two.']);
		expect(old.messages[2]!.versions).toEqual({ index: 0, count: 2, ids: [two!.id, edit.run] });

		expect(await runtime.runService.start({ kind: 'edit', conversation, editOf: one!.id, message: 'uno' })).toEqual({ refused: 'branch-point-pruned' });
		await run(runtime, { kind: 'regenerate', conversation, messageId: second!.id });
		expect(said((await detail(runtime, conversation)).messages).at(-1)).toBe('assistant: Answer 4 to two.');
		// A third branch shares the second's first two kept checkpoints.
		expect(stored()).toBe(8);
		db.close();
		expect(await switched(runtime, conversation, edit.run)).toEqual([
			'user: one',
			'assistant: Answer 1 to one.',
			'user: dos',
			'assistant: Answer 3 to dos.'
		]);
	});

	it('refuses an edit of a message the active branch does not hold, of the wrong role, and a regenerate of a user message', async () => {
		const ollama = await model(numberedAnswers());
		const { runtime } = await start({ ollamaUrl: ollama.url });
		const { conversation } = await send(runtime, null, 'one');
		const [one, answer] = (await detail(runtime, conversation)).messages;
		const refused = (request: StartRequest) => runtime.runService.start(request);
		expect(await refused({ kind: 'edit', conversation, editOf: 'nope', message: 'x' })).toEqual({ refused: 'message-not-on-branch' });
		expect(await refused({ kind: 'edit', conversation, editOf: answer!.id, message: 'x' })).toEqual({ refused: 'wrong-role', target: 'edit' });
		expect(await refused({ kind: 'regenerate', conversation, messageId: one!.id })).toEqual({ refused: 'wrong-role', target: 'regenerate' });
		expect(await refused({ kind: 'regenerate', conversation: crypto.randomUUID(), messageId: one!.id })).toEqual({
			refused: 'conversation-not-found'
		});
		// Nothing changed: no run claimed, no branch.
		expect((await runtime.storage.runs.list(conversation))).toHaveLength(1);
		expect((await runtime.storage.branches.head(conversation))).toBeUndefined();
	});
});
