import { beforeEach, describe, expect, it } from 'vitest';
import { ChatController } from '../../../src/lib/client/chat-controller';
import { DECIDED_ELSEWHERE_MESSAGE, DECIDING_ELSEWHERE_MESSAGE } from '../../../src/lib/client/chat-snapshot';
import { chatView } from '../../../src/lib/client/chat-view';
import type { MessageDto } from '../../../src/lib/protocol';
import { FakeApi, FakeStreams, deferred, detail, ev, fail, ok, pending, settle, summary, waitingDetail } from '../../support/client-fakes';

const USER: MessageDto = { id: 'u1', role: 'user', content: 'save a' };
const CALLED: MessageDto = { id: 'a1', role: 'assistant', content: '', toolCalls: [{ id: 'call-a', name: 'test__effect', args: { item: 'a' } }] };
const SAVED: MessageDto = { id: 't1', role: 'tool', content: 'saved a', name: 'test__effect', toolCallId: 'call-a', status: 'success' };
const DONE: MessageDto = { id: 'a2', role: 'assistant', content: 'Saved.' };
const WAITING = [pending('call-a')];

describe('ChatController and calls that wait for a decision', () => {
	let api: FakeApi;
	let streams: FakeStreams;
	let chat: ChatController;
	const view = () => chatView(chat.snapshot);

	beforeEach(() => {
		api = new FakeApi();
		streams = new FakeStreams();
		chat = new ChatController({ api, openStream: streams.open });
	});

	async function openWaiting() {
		api.conversations = [summary('c1', { status: 'waiting' })];
		api.details.set('c1', waitingDetail('c1', [USER, CALLED], WAITING));
		await chat.start(null);
	}

	it('opens a waiting conversation with its calls to decide, follows nothing and offers no Resume', async () => {
		api.conversations = [summary('c1', { status: 'waiting' })];
		// Even a server that called it resumable: only the decisions move a waiting thread on.
		api.details.set('c1', { ...waitingDetail('c1', [USER, CALLED], WAITING), resumable: true });
		await chat.start(null);
		expect(chat.snapshot).toMatchObject({ status: 'idle', approvals: WAITING });
		expect(streams.opened).toHaveLength(0);
		expect(view()).toMatchObject({ showResume: false, canDecide: true, awaiting: new Set(['call-a']) });
		await chat.resume();
		expect(api.calls.startRun).toEqual([]);
	});

	it('shows the calls from the approval event at once, and from the detail once the run ended waiting', async () => {
		await chat.send('save a');
		streams.emit(ev.enter(1, 1), ev.call(2, 1, 'test__effect', 'call-a', { item: 'a' }), ev.leave(3, 1));
		streams.emit(ev.approval(4, WAITING, 'new-conversation'));
		// The run is still followed until its `end`: the card is there, its buttons not yet.
		expect(chat.snapshot.approvals).toEqual(WAITING);
		expect(view().canDecide).toBe(false);

		api.details.set('new-conversation', waitingDetail('new-conversation', [USER, CALLED], WAITING));
		const lists = api.calls.listConversations.length;
		streams.emit(ev.end(5, 'waiting', 'new-conversation'));
		await settle();
		expect(chat.snapshot).toMatchObject({ status: 'idle', approvals: WAITING, error: null, notice: null });
		expect(view().canDecide).toBe(true);
		// The sidebar learns the new status (its "Needs approval" badge).
		expect(api.calls.listConversations.length).toBe(lists + 1);
	});

	it('decides every call in one post and follows the run that carries the decisions out', async () => {
		await openWaiting();
		api.answers.startRun = (body) => ok({ conversation: body.conversation!, run: 'run-2' });
		const deciding = chat.decide([{ toolCallId: 'call-a', action: 'approve' }]);
		expect(chat.snapshot.status).toBe('sending');
		expect(await deciding).toBe(true);
		expect(api.calls.startRun).toEqual([[{ conversation: 'c1', decisions: [{ toolCallId: 'call-a', action: 'approve' }] }]]);
		expect(chat.snapshot).toMatchObject({ status: 'streaming', runId: 'run-2', approvals: [] });
		expect(streams.last.conversationId).toBe('c1');

		api.details.set('c1', detail('c1', [USER, CALLED, SAVED, DONE]));
		streams.emit(ev.enter(1, 2, 'tools'), ev.result(2, 2, 'test__effect', 'call-a', 'saved a'), ev.leave(3, 2, 'tools'), ev.end(4, 'completed'));
		await settle();
		expect(chat.snapshot).toMatchObject({ status: 'idle', approvals: [] });
		expect(view().transcript.at(-1)).toMatchObject({ kind: 'assistant', text: 'Saved.' });
	});

	it('decides nothing when nothing waits, or while a run is being started or followed', async () => {
		api.details.set('c1', detail('c1', [USER]));
		await chat.select('c1');
		expect(await chat.decide([{ toolCallId: 'call-a', action: 'approve' }])).toBe(false);
		api.details.set('c1', waitingDetail('c1', [USER, CALLED], WAITING));
		await chat.select('c1');
		const slow = deferred<ReturnType<typeof ok>>();
		api.answers.startRun = () => slow.promise as never;
		const first = chat.decide([{ toolCallId: 'call-a', action: 'approve' }]);
		expect(await chat.decide([{ toolCallId: 'call-a', action: 'deny' }])).toBe(false);
		slow.resolve(ok({ conversation: 'c1', run: 'run-2' }));
		expect(await first).toBe(true);
		expect(api.calls.startRun).toHaveLength(1);
	});

	it('follows the run another tab started with its decisions (409 busy)', async () => {
		await openWaiting();
		api.answers.startRun = () => fail(409, 'SESSION_IN_PROGRESS', 'Previous request still in progress');
		expect(await chat.decide([{ toolCallId: 'call-a', action: 'approve' }])).toBe(false);
		expect(chat.snapshot).toMatchObject({
			status: 'streaming',
			approvals: [],
			notice: { kind: 'info', message: DECIDING_ELSEWHERE_MESSAGE }
		});
		expect(streams.last.conversationId).toBe('c1');
	});

	it('reads the conversation again when the calls were decided elsewhere (NOT_WAITING)', async () => {
		await openWaiting();
		api.answers.startRun = () => fail(409, 'NOT_WAITING', 'This conversation is not waiting for a decision');
		api.details.set('c1', detail('c1', [USER, CALLED, SAVED, DONE]));
		expect(await chat.decide([{ toolCallId: 'call-a', action: 'approve' }])).toBe(false);
		expect(chat.snapshot).toMatchObject({
			status: 'idle',
			approvals: [],
			error: null,
			notice: { kind: 'info', message: DECIDED_ELSEWHERE_MESSAGE }
		});
		expect(view().transcript.at(-1)).toMatchObject({ text: 'Saved.' });
	});

	it('shows the new calls when the step changed since the page read it (400), and follows a run found going on', async () => {
		await openWaiting();
		api.answers.startRun = () => fail(400, 'BAD_REQUEST', 'No call waits with the id "call-a"');
		api.details.set('c1', waitingDetail('c1', [USER, CALLED, SAVED], [pending('call-b', 'test__effect', { item: 'b' })]));
		await chat.decide([{ toolCallId: 'call-a', action: 'approve' }]);
		expect(chat.snapshot).toMatchObject({ status: 'idle', error: { code: 'BAD_REQUEST' }, approvals: [{ toolCallId: 'call-b' }] });

		api.answers.startRun = () => fail(409, 'NOT_WAITING', 'not waiting');
		api.details.set('c1', detail('c1', [USER], { status: 'running' }));
		await chat.decide([{ toolCallId: 'call-b', action: 'deny' }]);
		expect(chat.snapshot).toMatchObject({ status: 'streaming', approvals: [] });
	});

	it('keeps the card and the choices when the server cannot be reached', async () => {
		await openWaiting();
		const reads = api.calls.getConversation.length;
		api.answers.startRun = () => fail(0, 'FETCH_ERROR', 'Failed to connect to the server.');
		expect(await chat.decide([{ toolCallId: 'call-a', action: 'approve' }])).toBe(false);
		expect(chat.snapshot).toMatchObject({ status: 'idle', approvals: WAITING, error: { code: 'FETCH_ERROR' } });
		expect(api.calls.getConversation.length).toBe(reads);
	});

	it('a resume refused because the conversation now waits shows its calls', async () => {
		api.details.set('c1', detail('c1', [USER], { status: 'interrupted' }, true));
		await chat.select('c1');
		api.answers.startRun = () => fail(409, 'APPROVAL_REQUIRED', 'This conversation waits for a decision');
		api.details.set('c1', waitingDetail('c1', [USER, CALLED], WAITING));
		await chat.resume();
		expect(chat.snapshot).toMatchObject({ status: 'idle', resumable: false, approvals: WAITING, error: { code: 'APPROVAL_REQUIRED' } });
		expect(view().showResume).toBe(false);
	});

	it('a new message instead of a decision takes the card away and starts its run', async () => {
		await openWaiting();
		api.answers.startRun = () => ok({ conversation: 'c1', run: 'run-2' });
		expect(await chat.send('never mind')).toBe(true);
		expect(api.calls.startRun).toEqual([[{ message: 'never mind', conversation: 'c1' }]]);
		expect(chat.snapshot).toMatchObject({ status: 'streaming', approvals: [] });
	});

	it('leaving the conversation forgets its calls', async () => {
		await openWaiting();
		chat.newChat();
		expect(chat.snapshot.approvals).toEqual([]);
		api.details.set('c2', detail('c2', [USER]));
		await openWaiting();
		await chat.select('c2');
		expect(chat.snapshot.approvals).toEqual([]);
	});
});
