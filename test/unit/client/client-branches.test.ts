import { beforeEach, describe, expect, it } from 'vitest';
import { ChatController } from '../../../src/lib/client/chat-controller';
import { IN_PROGRESS_MESSAGE } from '../../../src/lib/client/chat-snapshot';
import { chatView } from '../../../src/lib/client/chat-view';
import { applyRunEvent, emptyLiveRun } from '../../../src/lib/client/live-run';
import { buildTranscript } from '../../../src/lib/client/transcript';
import type { MessageDto } from '../../../src/lib/protocol';
import { FakeApi, FakeStreams, detail, ev, fail, settle, summary } from '../../support/client-fakes';

const U1: MessageDto = { id: 'u1', role: 'user', content: 'one' };
const A1: MessageDto = { id: 'a1', role: 'assistant', content: 'Answer one.' };
const U2: MessageDto = { id: 'u2', role: 'user', content: 'two' };
const A2: MessageDto = { id: 'a2', role: 'assistant', content: '', toolCalls: [{ id: 'call-1', name: 'test__effect', args: { item: 'a' } }] };
const T2: MessageDto = { id: 't2', role: 'tool', content: 'saved a', name: 'test__effect', toolCallId: 'call-1', status: 'success' };
const A3: MessageDto = { id: 'a3', role: 'assistant', content: 'Saved.' };

describe('ChatController: branches', () => {
	let api: FakeApi;
	let streams: FakeStreams;
	let chat: ChatController;
	const view = () => chatView(chat.snapshot);
	const texts = () => view().transcript.map((i) => (i.kind === 'tool' ? i.result.content : i.text));

	beforeEach(async () => {
		api = new FakeApi();
		streams = new FakeStreams();
		chat = new ChatController({ api, openStream: streams.open });
		api.conversations = [summary('c1')];
		api.details.set('c1', detail('c1', [U1, A1, U2, A2, T2, A3]));
		await chat.start(null);
	});

	it('an edit shows the messages before the edited one and the new text, follows the run, then shows the new branch', async () => {
		expect(await chat.edit('u2', '  dos  ')).toBe(true);
		expect(api.calls.startRun).toEqual([[{ conversation: 'c1', message: 'dos', editOf: 'u2' }]]);
		expect(texts()).toEqual(['one', 'Answer one.', 'dos']);
		expect(chat.snapshot).toMatchObject({ status: 'streaming', runId: 'run-1' });
		streams.emit(ev.enter(1, 1), ev.token(2, 'Answer dos.'));
		expect(texts()).toEqual(['one', 'Answer one.', 'dos', 'Answer dos.']);

		const dos: MessageDto = { id: 'run-1', role: 'user', content: 'dos', versions: { index: 1, count: 2, ids: ['u2', 'run-1'] } };
		api.details.set('c1', detail('c1', [U1, A1, dos, { id: 'a9', role: 'assistant', content: 'Answer dos.' }]));
		streams.emit(ev.leave(3, 1), ev.end(4, 'completed'));
		await settle();
		expect(texts()).toEqual(['one', 'Answer one.', 'dos', 'Answer dos.']);
		expect(view().transcript[2]).toMatchObject({ kind: 'user', id: 'run-1', versions: { index: 1, count: 2 } });
	});

	it('a regenerate shows the messages before the answer and follows the run', async () => {
		expect(await chat.regenerate('a2')).toBe(true);
		expect(api.calls.startRun).toEqual([[{ conversation: 'c1', regenerate: 'a2' }]]);
		expect(texts()).toEqual(['one', 'Answer one.', 'two']);
		expect(view().pending).toBe(true);
	});

	it('refuses what cannot be branched: nothing sent, nothing changed', async () => {
		expect(await chat.edit('u2', '   ')).toBe(false);
		expect(await chat.edit('a1', 'x')).toBe(false);
		expect(await chat.edit('nope', 'x')).toBe(false);
		expect(await chat.regenerate('u1')).toBe(false);
		expect(api.calls.startRun).toEqual([]);
		await chat.edit('u2', 'dos');
		expect(await chat.regenerate('a1')).toBe(false);
		expect(api.calls.startRun).toHaveLength(1);
	});

	it('a refused edit keeps the transcript and says why; a busy conversation is followed instead', async () => {
		api.answers.startRun = () => fail(409, 'BRANCH_POINT_PRUNED', 'no longer kept');
		expect(await chat.edit('u2', 'dos')).toBe(false);
		expect(chat.snapshot).toMatchObject({ status: 'idle', error: { code: 'BRANCH_POINT_PRUNED' } });
		expect(texts()).toEqual(['one', 'Answer one.', 'two', '', 'Saved.']);
		api.answers.startRun = () => fail(409, 'SESSION_IN_PROGRESS', 'busy');
		expect(await chat.regenerate('a2')).toBe(false);
		expect(chat.snapshot).toMatchObject({ status: 'streaming', notice: { message: IN_PROGRESS_MESSAGE } });
		expect(streams.last.conversationId).toBe('c1');
	});

	it('switching shows the branch the server made active, and lists the conversations again', async () => {
		const other = detail('c1', [{ ...U1, versions: { index: 0, count: 2, ids: ['u1', 'u9'] } }, A1], { messageCount: 2 });
		api.answers.switchBranch = () => ({ ok: true, value: other });
		const lists = api.calls.listConversations.length;
		await chat.switchBranch('u1');
		expect(api.calls.switchBranch).toEqual([['c1', 'u1']]);
		expect(texts()).toEqual(['one', 'Answer one.']);
		expect(view().transcript[0]).toMatchObject({ versions: { index: 0, count: 2 } });
		expect(api.calls.listConversations.length).toBe(lists + 1);

		api.answers.switchBranch = () => fail(409, 'SESSION_IN_PROGRESS', 'A run is active');
		await chat.switchBranch('u9');
		expect(chat.snapshot.error).toMatchObject({ code: 'SESSION_IN_PROGRESS' });
		expect(texts()).toEqual(['one', 'Answer one.']);
	});

	it('does not switch while a run is followed', async () => {
		await chat.edit('u2', 'dos');
		await chat.switchBranch('u1');
		expect(api.calls.switchBranch).toEqual([]);
	});
});

describe('buildTranscript: branches', () => {
	it('gives each turn\'s last saved answer the turn\'s first assistant message to regenerate from', () => {
		const items = buildTranscript([U1, A1, U2, A2, T2, A3], null);
		expect(items.map((i) => (i.kind === 'assistant' ? (i.regenerate ?? null) : i.kind))).toEqual(['user', 'a1', 'user', null, 'a2']);
		expect(items.map((i) => (i.kind === 'tool' ? null : i.id))).toEqual(['u1', 'a1', 'u2', 'a2', 'a3']);
	});

	it('offers no regenerate for a turn still streaming', () => {
		const run = [ev.enter(1, 1), ev.token(2, 'Partial')].reduce(applyRunEvent, emptyLiveRun());
		const items = buildTranscript([U1, A1, { id: 'local-1', role: 'user', content: 'two' }], run);
		expect(items.at(-1)).toMatchObject({ kind: 'assistant', text: 'Partial', live: true });
		expect(items.at(-1)).not.toHaveProperty('regenerate');
		expect(items.at(-1)).not.toHaveProperty('id');
	});

	it('marks a result taken from another branch, saved or live', () => {
		const reused = { toolCallId: 'call-0', messageId: 'a0' };
		const saved = buildTranscript([U2, A2, { ...T2, reusedFrom: reused }], null);
		expect(saved[1]).toMatchObject({ tools: [{ result: { content: 'saved a', reusedFrom: reused } }] });
		const result = ev.result(3, 2, 'test__effect', 'call-1', 'saved a');
		if (result.event === 'trace') result.data.data = { ...result.data.data, reusedFrom: reused };
		const run = [ev.call(1, 1, 'test__effect', 'call-1'), result].reduce(applyRunEvent, emptyLiveRun());
		expect(buildTranscript([U2], run)[1]).toMatchObject({ tools: [{ result: { reusedFrom: reused } }] });
	});
});
