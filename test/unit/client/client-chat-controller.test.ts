import { beforeEach, describe, expect, it } from 'vitest';
import { ChatController, LIST_PAGE } from '../../../src/lib/client/chat-controller';
import { CANCELLED_MESSAGE, CANCELLING_MESSAGE, DETACHED_MESSAGE, IN_PROGRESS_MESSAGE } from '../../../src/lib/client/chat-snapshot';
import { chatView } from '../../../src/lib/client/chat-view';
import type { MessageDto } from '../../../src/lib/protocol';
import { FakeApi, FakeStreams, deferred, detail, ev, fail, ok, settle, summary } from '../../support/client-fakes';

const USER: MessageDto = { id: 'u1', role: 'user', content: 'hello' };
const ANSWER: MessageDto = { id: 'a1', role: 'assistant', content: 'Hi there.' };

describe('ChatController', () => {
	let api: FakeApi;
	let streams: FakeStreams;
	let chat: ChatController;
	const view = () => chatView(chat.snapshot);
	const texts = () => view().transcript.map((i) => (i.kind === 'tool' ? i.result.content : i.text));

	beforeEach(() => {
		api = new FakeApi();
		streams = new FakeStreams();
		chat = new ChatController({ api, openStream: streams.open });
	});

	describe('loading', () => {
		it('opens the most recently updated conversation on start', async () => {
			api.conversations = [summary('c2'), summary('c1')];
			api.details.set('c2', detail('c2', [USER, ANSWER]));
			await chat.start(null);
			expect(chat.snapshot).toMatchObject({ status: 'idle', conversationId: 'c2', listState: 'ready' });
			expect(texts()).toEqual(['hello', 'Hi there.']);
			expect(streams.opened).toHaveLength(0);
		});

		it('opens the conversation named in the URL, or the newest when it is gone', async () => {
			api.conversations = [summary('c2'), summary('c1')];
			api.details.set('c1', detail('c1', [USER]));
			api.details.set('c2', detail('c2', []));
			await chat.start('c1');
			expect(chat.snapshot.conversationId).toBe('c1');
			const other = new ChatController({ api, openStream: streams.open });
			await other.start('deleted-one');
			expect(other.snapshot.conversationId).toBe('c2');
		});

		it('does not open the newest conversation over a New chat chosen while the list loaded', async () => {
			const list = deferred<ReturnType<typeof ok>>();
			api.answers.listConversations = () => list.promise as never;
			api.details.set('c1', detail('c1', [USER]));
			const starting = chat.start(null);
			chat.newChat();
			list.resolve(ok([summary('c1')]));
			await starting;
			expect(chat.snapshot.conversationId).toBeNull();
			expect(api.calls.getConversation).toEqual([]);
		});

		it('follows a running conversation as soon as it opens', async () => {
			api.conversations = [summary('c1', { status: 'running' })];
			api.details.set('c1', detail('c1', [USER], { status: 'running' }));
			await chat.start(null);
			expect(chat.snapshot.status).toBe('streaming');
			expect(streams.last.conversationId).toBe('c1');
			expect(streams.last.runId).toBeUndefined();
			expect(view().pending).toBe(true);
		});

		it('shows the stored error of a failed conversation, and offers Resume when resumable', async () => {
			api.details.set('c1', detail('c1', [USER], { status: 'failed', error: { code: 'MODEL_UNREACHABLE', message: 'down' } }, true));
			await chat.select('c1');
			expect(chat.snapshot.error).toEqual({ code: 'MODEL_UNREACHABLE', message: 'down' });
			expect(view().showResume).toBe(true);
		});

		it('drops the answer for a conversation the reader already left', async () => {
			const slow = deferred<ReturnType<typeof ok>>();
			api.details.set('c2', detail('c2', [{ id: 'u2', role: 'user', content: 'second' }]));
			api.answers.getConversation = (id) => (id === 'c1' ? (slow.promise as never) : ok(api.details.get(id)!));
			const first = chat.select('c1');
			await chat.select('c2');
			slow.resolve(ok(detail('c1', [USER])));
			await first;
			expect(chat.snapshot.conversationId).toBe('c2');
			expect(texts()).toEqual(['second']);
		});

		it('says what failed when the conversation cannot be loaded', async () => {
			await chat.select('missing');
			expect(chat.snapshot).toMatchObject({ status: 'idle', error: { code: 'NOT_FOUND' } });
		});
	});

	describe('a long list', () => {
		const many = (n: number) => Array.from({ length: n }, (_, i) => summary(`c${i}`));

		it('lists a page of conversations and adds a page on "Show more" until none are left', async () => {
			api.conversations = many(LIST_PAGE + 50);
			api.details.set('c0', detail('c0', []));
			await chat.start(null);
			expect(chat.snapshot.conversations).toHaveLength(LIST_PAGE);
			expect(chat.snapshot.hasMoreConversations).toBe(true);
			await chat.showMoreConversations();
			expect(chat.snapshot.conversations.map((c) => c.id)).toEqual(api.conversations.map((c) => c.id));
			expect(chat.snapshot.hasMoreConversations).toBe(false);
			expect(api.calls.listConversations).toEqual([[LIST_PAGE], [2 * LIST_PAGE]]);
			// A later refresh (after a run, a delete) keeps the longer page.
			await chat.refreshList();
			expect(api.calls.listConversations.at(-1)).toEqual([2 * LIST_PAGE]);
		});

		it('opens a conversation from the URL that is older than the first page', async () => {
			api.conversations = many(LIST_PAGE + 5);
			const old = `c${LIST_PAGE + 2}`;
			api.details.set(old, detail(old, [USER]));
			await chat.start(old);
			expect(chat.snapshot.conversationId).toBe(old);
			expect(texts()).toEqual(['hello']);
			expect(chat.snapshot.conversations.map((c) => c.id)).not.toContain(old);
			expect(view().current?.id).toBe(old);
		});
	});

	describe('sending', () => {
		it('posts, shows the message at once, streams the answer, then shows the durable transcript', async () => {
			const sent = chat.send('  hello  ');
			expect(chat.snapshot.status).toBe('sending');
			expect(await sent).toBe(true);
			expect(api.calls.startRun).toEqual([[{ message: 'hello', conversation: null }]]);
			expect(chat.snapshot).toMatchObject({ status: 'streaming', conversationId: 'new-conversation', runId: 'run-1' });
			// Named, so the stream replays the run's steps even if it ended before the stream opened.
			expect(streams.last).toMatchObject({ conversationId: 'new-conversation', runId: 'run-1' });
			expect(texts()).toEqual(['hello']);
			expect(view().pending).toBe(true);

			streams.emit(ev.enter(1, 1), ev.token(2, 'Hi '), ev.token(3, 'there.'));
			expect(texts()).toEqual(['hello', 'Hi there.']);
			expect(view().pending).toBe(false);

			api.details.set('new-conversation', detail('new-conversation', [USER, ANSWER]));
			streams.emit(ev.leave(4, 1), ev.end(5, 'completed', 'new-conversation'));
			expect(streams.last.closed).toBe(true);
			expect(chat.snapshot.status).toBe('idle');
			await settle();
			expect(chat.snapshot.base).toEqual([USER, ANSWER]);
			expect(texts()).toEqual(['hello', 'Hi there.']);
			expect(view().timeline.map((t) => t.event)).toEqual(['enter', 'leave']);
		});

		it('refuses a blank message and a message while a run is followed', async () => {
			expect(await chat.send('   ')).toBe(false);
			await chat.send('one');
			expect(await chat.send('two')).toBe(false);
			expect(api.calls.startRun).toHaveLength(1);
		});

		it('shows the server error and gives the text back when the start is refused', async () => {
			api.answers.startRun = () => fail(413, 'MESSAGE_TOO_LARGE', 'Message too long');
			expect(await chat.send('x')).toBe(false);
			expect(chat.snapshot).toMatchObject({ status: 'idle', error: { code: 'MESSAGE_TOO_LARGE', message: 'Message too long' } });
		});

		it('follows the run already going on when the conversation is busy (409)', async () => {
			api.details.set('c1', detail('c1', [USER]));
			await chat.select('c1');
			api.answers.startRun = () => fail(409, 'SESSION_IN_PROGRESS', 'Previous request still in progress');
			expect(await chat.send('again')).toBe(false);
			expect(chat.snapshot).toMatchObject({ status: 'streaming', notice: { kind: 'info', message: IN_PROGRESS_MESSAGE } });
			expect(streams.last.conversationId).toBe('c1');
			expect(streams.last.runId).toBeUndefined();
		});

		it('shows a run failure with its code, and checks readiness again after a model error', async () => {
			await chat.send('hello');
			api.details.set('new-conversation', detail('new-conversation', [USER], { status: 'failed' }, true));
			const readinessCalls = api.calls.readiness.length;
			streams.emit(ev.error(1, 'MODEL_UNREACHABLE', 'Ollama is not reachable'));
			await settle();
			expect(chat.snapshot).toMatchObject({ status: 'idle', error: { code: 'MODEL_UNREACHABLE', message: 'Ollama is not reachable' } });
			expect(api.calls.readiness.length).toBe(readinessCalls + 1);
			expect(view().showResume).toBe(true);
		});

		it('does not let a finished run’s reload wipe the next message', async () => {
			api.details.set('c1', detail('c1', [USER, ANSWER]));
			await chat.select('c1');
			const reload = deferred<ReturnType<typeof ok>>();
			api.answers.getConversation = () => reload.promise as never;
			await chat.send('first');
			streams.emit(ev.end(1, 'completed'));
			api.answers.startRun = () => ok({ conversation: 'c1', run: 'run-2' });
			await chat.send('second');
			reload.resolve(ok(detail('c1', [USER, ANSWER])));
			await settle();
			expect(texts()).toEqual(['hello', 'Hi there.', 'first', 'second']);
		});
	});

	describe('following a run', () => {
		it('rebuilds the partial answer from a replay without repeating durable steps', async () => {
			const durable: MessageDto[] = [
				USER,
				{ id: 'a1', role: 'assistant', content: '', toolCalls: [{ id: 'call-a', name: 'memory__read_graph', args: {} }] },
				{ id: 't1', role: 'tool', content: '{}', name: 'memory__read_graph', toolCallId: 'call-a', status: 'success' }
			];
			api.details.set('c1', detail('c1', durable, { status: 'running' }));
			await chat.select('c1');
			streams.emit(
				ev.enter(1, 1),
				ev.call(2, 1, 'memory__read_graph', 'call-a'),
				ev.leave(3, 1),
				ev.enter(4, 2, 'tools'),
				ev.result(5, 2, 'memory__read_graph', 'call-a', '{}'),
				ev.leave(6, 2, 'tools'),
				ev.enter(7, 3),
				ev.token(8, 'Part')
			);
			// The browser reconnects with Last-Event-ID 8; a frame the server sends twice changes nothing.
			streams.emit(ev.token(8, 'Part'), ev.token(9, 'ial'));
			expect(texts()).toEqual(['hello', '', 'Partial']);
			expect(view().transcript[1]).toMatchObject({ tools: [{ result: { content: '{}' } }] });
		});

		it('rides out a dropped connection and offers Resume when the server restarted', async () => {
			api.details.set('c1', detail('c1', [USER], { status: 'running' }));
			await chat.select('c1');
			streams.emit(ev.enter(1, 1), ev.token(2, 'Half'));
			streams.last.handlers.onReconnecting();
			expect(chat.snapshot.connection).toBe('reconnecting');
			api.details.set('c1', detail('c1', [USER], { status: 'interrupted' }, true));
			// The restarted server has no live run: one `end` with the durable status and no id.
			streams.emit(ev.end(null, 'interrupted'));
			await settle();
			expect(chat.snapshot).toMatchObject({ status: 'idle', connection: null, resumable: true });
			expect(view().showResume).toBe(true);
			expect(texts()).toEqual(['hello']);
		});

		it('reports a stream the browser gave up on', async () => {
			await chat.send('hello');
			streams.last.handlers.onFailed();
			expect(chat.snapshot).toMatchObject({ status: 'idle', error: { code: 'SSE_ERROR' } });
			expect(streams.last.closed).toBe(true);
		});

		it('resumes: posts resume and follows the new run', async () => {
			api.details.set('c1', detail('c1', [USER], { status: 'interrupted' }, true));
			await chat.select('c1');
			api.answers.startRun = () => ok({ conversation: 'c1', run: 'run-2' });
			await chat.resume();
			expect(api.calls.startRun.at(-1)).toEqual([{ conversation: 'c1', resume: true }]);
			expect(chat.snapshot).toMatchObject({ status: 'streaming', runId: 'run-2', resumable: false });
			expect(streams.last.runId).toBe('run-2');
		});

		it('hides Resume when the server says there is nothing to resume', async () => {
			api.details.set('c1', detail('c1', [USER], {}, true));
			await chat.select('c1');
			api.answers.startRun = () => fail(409, 'RUN_NOT_RESUMABLE', 'Nothing to resume');
			await chat.resume();
			expect(chat.snapshot).toMatchObject({ status: 'idle', resumable: false, error: { code: 'RUN_NOT_RESUMABLE' } });
		});
	});

	describe('stop', () => {
		it('cancels through the API when it exists and waits for the cancelled end', async () => {
			api.answers.cancelRun = () => ok({});
			await chat.send('hello');
			expect(await chat.stop()).toBe('cancelling');
			expect(api.calls.cancelRun).toEqual([['run-1']]);
			expect(chat.snapshot).toMatchObject({ status: 'stopping', notice: { kind: 'info', message: CANCELLING_MESSAGE } });
			streams.emit(ev.end(1, 'cancelled', 'new-conversation'));
			expect(chat.snapshot).toMatchObject({ status: 'idle', notice: { kind: 'cancelled', message: CANCELLED_MESSAGE } });
		});

		it.each([404, 405])('detaches when the cancel endpoint answers %i, and can follow again', async (status) => {
			api.answers.cancelRun = () => fail(status, `HTTP_${status}`);
			await chat.send('hello');
			streams.emit(ev.enter(1, 1), ev.token(2, 'Partial'));
			expect(await chat.stop()).toBe('detached');
			expect(streams.last.closed).toBe(true);
			expect(chat.snapshot).toMatchObject({ status: 'idle', notice: { kind: 'detached', message: DETACHED_MESSAGE } });
			expect(texts()).toEqual(['hello', 'Partial']);

			chat.follow();
			expect(streams.opened).toHaveLength(2);
			expect(chat.snapshot.status).toBe('streaming');
			// A new stream starts from the first event: the partial answer is rebuilt, not doubled.
			streams.emit(ev.enter(1, 1), ev.token(2, 'Partial'), ev.token(3, ' answer'));
			expect(texts()).toEqual(['hello', 'Partial answer']);
		});

		it('keeps following, with the error shown, when the cancel is refused otherwise', async () => {
			api.answers.cancelRun = () => fail(500, 'INTERNAL_ERROR', 'boom');
			await chat.send('hello');
			expect(await chat.stop()).toBe('failed');
			expect(chat.snapshot).toMatchObject({ status: 'streaming', error: { code: 'INTERNAL_ERROR' } });
			expect(streams.last.closed).toBe(false);
		});

		it('finds the running run when the page attached without starting it', async () => {
			api.details.set('c1', detail('c1', [USER], { status: 'running' }));
			api.answers.listRuns = () =>
				ok([{ id: 'run-9', status: 'running', trigger: 'message', input: 'hi', error: null, startedAt: '2026-11-01T10:00:00.000Z', finishedAt: null }]);
			await chat.select('c1');
			await chat.stop();
			expect(api.calls.cancelRun).toEqual([['run-9']]);
		});

		it('cancels the run that carries on the stream when the one it started with was taken over and resumed', async () => {
			api.answers.cancelRun = (run) => ok({ conversation: 'new-conversation', run, status: run === 'run-1' ? 'interrupted' : 'cancelled' });
			api.answers.listRuns = () =>
				ok([
					{ id: 'run-2', status: 'running', trigger: 'auto-resume', input: null, error: null, startedAt: '2026-11-01T10:00:01.000Z', finishedAt: null },
					{ id: 'run-1', status: 'interrupted', trigger: 'message', input: 'hello', error: null, startedAt: '2026-11-01T10:00:00.000Z', finishedAt: '2026-11-01T10:00:01.000Z' }
				]);
			await chat.send('hello');
			// Run 1's owner died; the stream goes on with run 2, its ids above run 1's.
			streams.emit(ev.enter(1, 1), ev.token(2, 'Half'), ev.enter(2 ** 32 + 1, 1), ev.token(2 ** 32 + 2, 'Whole'));
			expect(texts()).toEqual(['hello', 'Half', 'Whole']);
			expect(await chat.stop()).toBe('cancelling');
			expect(api.calls.cancelRun).toEqual([['run-1'], ['run-2']]);
			expect(chat.snapshot).toMatchObject({ status: 'stopping', runId: 'run-2' });
			streams.emit(ev.end(2 ** 32 + 3, 'cancelled', 'new-conversation'));
			expect(chat.snapshot).toMatchObject({ status: 'idle', notice: { kind: 'cancelled', message: CANCELLED_MESSAGE } });
		});

		it('reports that the run ended when its end arrives while stopping', async () => {
			const cancel = deferred<ReturnType<typeof ok>>();
			api.answers.cancelRun = () => cancel.promise as never;
			await chat.send('hello');
			const stopping = chat.stop();
			await settle();
			streams.emit(ev.end(1, 'completed', 'new-conversation'));
			cancel.resolve(ok({}));
			expect(await stopping).toBe('ended');
			expect(chat.snapshot.status).toBe('idle');
		});
	});

	describe('conversations', () => {
		it('new chat closes the stream and clears the view', async () => {
			await chat.send('hello');
			const stream = streams.last;
			chat.newChat();
			expect(stream.closed).toBe(true);
			expect(chat.snapshot).toMatchObject({ status: 'idle', conversationId: null, base: [], live: null });
		});

		it('deletes a conversation, leaving it if it was open', async () => {
			api.conversations = [summary('c1'), summary('c2')];
			api.details.set('c1', detail('c1', [USER]));
			await chat.start(null);
			api.conversations = [summary('c2')];
			expect(await chat.remove('c1')).toBeNull();
			expect(chat.snapshot.conversationId).toBeNull();
			expect(chat.snapshot.conversations.map((c) => c.id)).toEqual(['c2']);
		});

		it('keeps a conversation the server refuses to delete and says why', async () => {
			api.conversations = [summary('c1')];
			await chat.refreshList();
			api.answers.deleteConversation = () => fail(409, 'SESSION_IN_PROGRESS', 'A run is active');
			expect(await chat.remove('c1')).toEqual({ code: 'SESSION_IN_PROGRESS', message: 'A run is active' });
			expect(chat.snapshot.conversations).toHaveLength(1);
		});

		it('applies only the latest list answer', async () => {
			const slow = deferred<ReturnType<typeof ok>>();
			api.answers.listConversations = () => slow.promise as never;
			const first = chat.refreshList();
			api.answers.listConversations = () => ok({ conversations: [summary('new')], hasMore: false });
			await chat.refreshList();
			slow.resolve(ok([summary('old')]));
			await first;
			expect(chat.snapshot.conversations.map((c) => c.id)).toEqual(['new']);
		});
	});
});
