// The app storage contract's shared suite (src/lib/server/storage/app-storage.ts): the same
// assertions against every engine, each on a real database of its own.

import { emptyCheckpoint, uuid6, type BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../src/lib/protocol';
import type { AppStorage, AppStorageLimits } from '../../src/lib/server/storage/app-storage';
import { describeThreadStorage } from './thread-storage-suite';
import type { ThreadCheckpoint } from '../../src/lib/server/checkpoint/thread-put';
import type { ConversationRecords } from '../../src/lib/server/storage/transfer-records';

export interface OpenedStorage {
	storage: AppStorage;
	/** The same database through another connection, as another process sees it. */
	other: AppStorage;
	/** The checkpoint saver on the same database. */
	saver: BaseCheckpointSaver;
	close(): Promise<void>;
}

const T = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

const LIMITS: AppStorageLimits = { maxConcurrentRuns: 100, maxQueuedMessages: 20 };

export function describeAppStorage(engine: string, open: (limits: AppStorageLimits) => Promise<OpenedStorage>): void {
	describe(`app storage on ${engine}`, () => {
		let opened: OpenedStorage;
		let storage: AppStorage;
		beforeEach(async () => {
			opened = await open(LIMITS);
			storage = opened.storage;
		});
		afterEach(() => opened.close());

		/**
		 * `fn` as the run `runId` of the conversation: a run's writes (journal, approval requests) are
		 * its owner's, so they are made while it holds the conversation, by the instance that claimed it.
		 */
		const asRun = async (s: AppStorage, conversationId: string, runId: string, fn: () => Promise<unknown>) => {
			expect(await s.runs.claim(conversationId, runId, T(1), 'resume', null)).toBe('claimed');
			await fn();
			expect(await s.runs.finish(runId, { status: 'completed', messageCount: 2 }, T(1))).toBe(true);
		};

		const conversation = async (id: string, second = 0) => {
			await storage.conversations.createWithRun(id, `first-${id}`, id, T(second));
			await storage.runs.finish(`first-${id}`, { status: 'completed', messageCount: 2 }, T(second));
		};

		it('creates a conversation with its first run claimed, and refuses a taken id, changing nothing', async () => {
			await storage.conversations.createWithRun('c1', 'r1', 'Hello there\nsecond line', T(0), 'ollama/qwen3');
			expect(await storage.conversations.get('c1')).toEqual({
				id: 'c1',
				title: 'Hello there',
				createdAt: T(0),
				updatedAt: T(0),
				messageCount: 0,
				model: 'ollama/qwen3',
				status: 'running'
			});
			expect(await storage.runs.get('r1')).toMatchObject({ conversationId: 'c1', status: 'running', trigger: 'message', input: 'Hello there\nsecond line' });
			await expect(storage.conversations.createWithRun('c1', 'r2', 'again', T(1))).rejects.toThrow();
			expect(await storage.runs.get('r2')).toBeUndefined();
			expect((await storage.conversations.firstPage(1000)).conversations).toHaveLength(1);
			await storage.runs.finish('r1', { status: 'completed', messageCount: 2 }, T(1));
			// A resume sets its model only once it goes ahead; a default conversation has none.
			expect(await storage.runs.claim('c1', 'r3', T(2), 'resume', null)).toBe('claimed');
			await opened.other.conversations.setModel('c1', 'openai/gpt');
			expect(await storage.conversations.model('c1')).toBe('openai/gpt');
			await storage.conversations.createWithRun('c2', 'r4', 'no model', T(3));
			expect(await storage.conversations.model('c2')).toBeNull();
		});

		it('answers a claim on a conversation there is none of as missing, and writes nothing', async () => {
			expect(await storage.runs.claim('nowhere', 'r1', T(1), 'message', 'hi')).toBe('missing');
			expect(await opened.other.runs.claim('nowhere', 'r2', T(1), 'resume', null)).toBe('missing');
			expect(await storage.runs.get('r1')).toBeUndefined();
			expect(await storage.runs.listRunning()).toEqual([]);
			expect(await storage.conversations.exists('nowhere')).toBe(false);
		});

		it('lets one run claim a conversation at a time, whoever asks, at the same moment too', async () => {
			await conversation('c1');
			expect(await storage.runs.claim('c1', 'r1', T(1), 'message', 'hi')).toBe('claimed');
			expect(await storage.runs.claim('c1', 'r2', T(2), 'message', 'hi')).toBe('busy');
			expect(await opened.other.runs.claim('c1', 'r3', T(3), 'resume', null)).toBe('busy');
			expect(await storage.runs.hasRunning('c1')).toBe(true);
			expect(await storage.runs.finish('r1', { status: 'completed', messageCount: 2 }, T(4))).toBe(true);
			const claims = await Promise.all([
				storage.runs.claim('c1', 'r4', T(5), 'message', 'a'),
				opened.other.runs.claim('c1', 'r5', T(5), 'message', 'b')
			]);
			expect([...claims].sort()).toEqual(['busy', 'claimed']);
			expect(await storage.runs.listRunning()).toEqual([{ id: claims[0] === 'claimed' ? 'r4' : 'r5', conversationId: 'c1' }]);
		});

		it('counts the conversations whose latest run waits, and every queued message, for the metrics', async () => {
			expect([await storage.runs.countWaiting(), await storage.queue.countAll()]).toEqual([0, 0]);
			await conversation('c1');
			await conversation('c2');
			await storage.runs.claim('c1', 'w1', T(1), 'message', 'hi');
			await storage.runs.finish('w1', { status: 'waiting', messageCount: 2 }, T(2));
			await storage.runs.claim('c2', 'w2', T(1), 'message', 'hi');
			await storage.runs.finish('w2', { status: 'waiting', messageCount: 2 }, T(2));
			await storage.queue.add('c2', 'q1', 'later', T(3));
			await storage.queue.add('c1', 'q2', 'later', T(3));
			expect([await storage.runs.countWaiting(), await storage.queue.countAll()]).toEqual([2, 2]);
			// A later run on c2 (the decision carried out) means c2 no longer waits.
			await storage.runs.claim('c2', 'd2', T(4), 'approval', null);
			expect(await storage.runs.countWaiting()).toBe(1);
		});

		it('reads what a run begins with: model, branch head, waiting calls and the run before it', async () => {
			await conversation('c1');
			expect(await storage.runs.opening('c1')).toEqual({ model: null, head: undefined, awaitingDecision: false, latestRuns: [{ id: 'first-c1', trigger: 'message' }] });
			await storage.runs.claim('c1', 'asks', T(1), 'resume', null, { model: 'ollama/other' });
			await storage.approvals.request('c1', 'asks', [{ toolCallId: 'w1', attempt: 0, tool: 'write', args: {}, reason: { kind: 'policy', message: 'asks' } }], T(1), T(99));
			await storage.runs.finish('asks', { status: 'waiting', messageCount: 2 }, T(1));
			expect(await storage.runs.claim('c1', 'edit', T(2), 'edit', 'edited', { branchFrom: 'checkpoint-3' })).toBe('claimed');
			expect(await opened.other.runs.opening('c1')).toEqual({
				model: 'ollama/other',
				head: 'checkpoint-3',
				awaitingDecision: true,
				latestRuns: [
					{ id: 'edit', trigger: 'edit' },
					{ id: 'asks', trigger: 'resume' }
				]
			});
			await storage.approvals.denyPending('c1', 'moved on', T(2));
			expect((await storage.runs.opening('c1')).awaitingDecision).toBe(false);
			expect(await storage.runs.opening('unknown')).toEqual({ model: null, head: undefined, awaitingDecision: false, latestRuns: [] });
		});

		it('keeps exactly one outcome when two try to record one', async () => {
			await conversation('c1');
			await storage.runs.claim('c1', 'r1', T(1), 'message', 'hi');
			const outcomes = await Promise.all([
				storage.runs.finish('r1', { status: 'completed', messageCount: 2 }, T(2)),
				opened.other.runs.finish('r1', { status: 'failed', error: { code: 'AGENT_FAILURE', message: 'x' }, messageCount: 0 }, T(2))
			]);
			expect(outcomes.filter(Boolean)).toHaveLength(1);
			const kept = outcomes[0] ? { status: 'completed', error: null } : { status: 'failed', error: { code: 'AGENT_FAILURE', message: 'x' } };
			expect((await storage.runs.list('c1'))[0]).toMatchObject({ id: 'r1', ...kept, finishedAt: T(2) });
			expect(await storage.conversations.get('c1')).toMatchObject({ messageCount: outcomes[0] ? 2 : 0, updatedAt: T(2), status: kept.status });
		});

		it('lists the runs left running with their input, and a conversation shows its latest run', async () => {
			await conversation('a');
			await conversation('b');
			await storage.runs.claim('a', 'ra', T(1), 'message', 'hello a');
			await storage.runs.claim('b', 'rb', T(1), 'resume', null);
			await storage.runs.finish('rb', { status: 'completed', messageCount: 2 }, T(2));
			expect(await storage.runs.listRunning()).toEqual([{ id: 'ra', conversationId: 'a' }]);
			expect(await storage.runs.get('ra')).toMatchObject({ input: 'hello a', trigger: 'message', status: 'running', startedAt: T(1), finishedAt: null });
			await storage.runs.finish('ra', { status: 'interrupted', error: { code: 'PROCESS_EXITED', message: 'gone' }, messageCount: 1 }, T(3));
			expect(await storage.conversations.get('a')).toMatchObject({ status: 'interrupted', error: { code: 'PROCESS_EXITED', message: 'gone' } });
			expect(await storage.conversations.get('b')).toMatchObject({ status: 'completed' });
			expect((await storage.conversations.get('b'))!.error).toBeUndefined();
			expect((await storage.runs.list('b')).map((run) => run.id)).toEqual(['rb', 'first-b']);
		});

		it('releases a claim that had nothing to run, never a finished run', async () => {
			await conversation('c1');
			await storage.runs.claim('c1', 'r1', T(1), 'resume', null);
			await storage.runs.releaseClaim('r1');
			expect(await storage.runs.get('r1')).toBeUndefined();
			await storage.runs.releaseClaim('first-c1');
			expect(await storage.runs.get('first-c1')).toMatchObject({ status: 'completed' });
		});

		it('lists conversations newest first, by pages, and a message run or a touch moves one up', async () => {
			await conversation('old', 0);
			await conversation('new', 1);
			await conversation('newest', 2);
			expect(((await storage.conversations.firstPage(1000)).conversations).map((c) => c.id)).toEqual(['newest', 'new', 'old']);
			await storage.runs.claim('old', 'r1', T(3), 'message', 'hi');
			expect(((await storage.conversations.firstPage(1000)).conversations).map((c) => c.id)).toEqual(['old', 'newest', 'new']);
			await storage.runs.claim('new', 'r2', T(4), 'resume', null);
			expect(((await storage.conversations.firstPage(1000)).conversations)[0]!.id).toBe('old');
			await storage.runs.touchConversation('new', T(4));
			const page = await storage.conversations.firstPage(2);
			expect({ ids: page.conversations.map((c) => c.id), hasMore: page.hasMore }).toEqual({ ids: ['new', 'old'], hasMore: true });
			expect((await storage.conversations.firstPage(3)).hasMore).toBe(false);
			expect(await storage.conversations.exists('new')).toBe(true);
			expect(await storage.conversations.exists('gone')).toBe(false);
		});

		it('queues messages oldest first and starts the next one only when the conversation is free', async () => {
			await conversation('c1');
			await storage.runs.claim('c1', 'busy', T(1), 'message', 'hi');
			await storage.queue.add('c1', 'q1', 'first', T(2));
			await storage.queue.add('c1', 'q2', 'second', T(2));
			expect(await storage.queue.list('c1')).toEqual([
				{ id: 'q1', message: 'first', createdAt: T(2) },
				{ id: 'q2', message: 'second', createdAt: T(2) }
			]);
			expect(await storage.queue.conversationsWaiting()).toEqual(['c1']);
			const run = (runId: string, now: string) => ({ runId, now, trigger: 'message' as const, input: 'first' });
			expect(await storage.queue.claimQueued('c1', 'q1', run('r1', T(3)))).toBe('busy');
			expect(await storage.queue.list('c1')).toHaveLength(2);
			await storage.runs.finish('busy', { status: 'completed', messageCount: 2 }, T(4));
			const claims = await Promise.all([
				storage.queue.claimQueued('c1', 'q1', run('r2', T(5))),
				opened.other.queue.claimQueued('c1', 'q1', run('r3', T(5)))
			]);
			expect([...claims].sort()).toEqual(['busy', 'claimed']);
			expect(await storage.runs.get(claims[0] === 'claimed' ? 'r2' : 'r3')).toMatchObject({ status: 'running', input: 'first', trigger: 'message' });
			expect((await storage.queue.list('c1')).map((m) => m.id)).toEqual(['q2']);
		});

		it('journals intents and keeps the first outcome; an intent after it changes nothing', async () => {
			await conversation('c1');
			const entry = { threadId: 'c1', toolCallId: 'call-1', runId: 'r1', step: 2, tool: 'fetch', argsHash: 'h', callHash: 'c', idempotencyKey: 'c1:call-1', messageId: 'ai-1' };
			await asRun(storage, 'c1', 'r1', () => storage.journal.recordIntent(entry, T(1), false));
			await asRun(storage, 'c1', 'r2', async () => {
				await storage.journal.recordIntent({ ...entry, runId: 'r2' }, T(2), true);
				expect(await storage.journal.get('c1', 'call-1')).toEqual({ ...entry, runId: 'r2', attempts: 2, outcome: null, result: null });
				await storage.journal.recordOutcome('c1', 'call-1', 'r2', { outcome: 'success', result: 'page' }, T(3));
			});
			await asRun(opened.other, 'c1', 'r-late', () =>
				opened.other.journal.recordOutcome('c1', 'call-1', 'r-late', { outcome: 'error', result: 'late' }, T(4))
			);
			await asRun(storage, 'c1', 'r3', () => storage.journal.recordIntent({ ...entry, runId: 'r3' }, T(5), true));
			expect(await storage.journal.get('c1', 'call-1')).toEqual({ ...entry, runId: 'r2', attempts: 2, outcome: 'success', result: 'page' });
			expect(await storage.journal.get('c1', 'call-2')).toBeUndefined();
		});

		const ask = (toolCallId: string, attempt = 0) => ({
			toolCallId,
			attempt,
			tool: `tool-${toolCallId}`,
			args: { target: toolCallId },
			reason: { kind: 'policy' as const, message: `asks before ${toolCallId}` }
		});
		const decideAll = (action: 'approve' | 'deny') => (pending: readonly PendingApproval[]) =>
			pending.map((p) => ({ toolCallId: p.toolCallId, tool: p.tool, action, remember: false }));

		it('asks about a call once per attempt and lists what waits, in the order asked', async () => {
			await conversation('c1');
			await asRun(storage, 'c1', 'r1', () => storage.approvals.request('c1', 'r1', [ask('b'), ask('a')], T(1), T(100)));
			await asRun(opened.other, 'c1', 'r2', () =>
				opened.other.approvals.request('c1', 'r2', [ask('b'), { ...ask('a'), args: { other: true } }], T(2), T(200))
			);
			expect(await storage.approvals.pending('c1')).toEqual([
				{ toolCallId: 'b', tool: 'tool-b', args: { target: 'b' }, reason: { kind: 'policy', message: 'asks before b' }, requestedAt: T(1), expiresAt: T(100) },
				{ toolCallId: 'a', tool: 'tool-a', args: { target: 'a' }, reason: { kind: 'policy', message: 'asks before a' }, requestedAt: T(1), expiresAt: T(100) }
			]);
			expect(await storage.approvals.decision('c1', 'a', 0)).toBeUndefined();
			expect(await storage.approvals.pending('other')).toEqual([]);
		});

		it('records decisions with the approval run that acts on them and the tools to allow, in one commit', async () => {
			await conversation('c1');
			await asRun(storage, 'c1', 'r1', () => storage.approvals.request('c1', 'r1', [ask('a'), ask('b')], T(1), T(100)));
			const claim = await storage.approvals.decideWithRun('c1', 'decided', T(2), (pending) => [
				{ toolCallId: pending[0]!.toolCallId, tool: pending[0]!.tool, action: 'approve', remember: true },
				{ toolCallId: pending[1]!.toolCallId, tool: pending[1]!.tool, action: 'edit', args: { target: 'edited' }, reason: 'safer', remember: false }
			]);
			expect(claim).toBe('claimed');
			expect(await storage.runs.get('decided')).toMatchObject({ status: 'running', trigger: 'approval', input: null });
			expect(await storage.approvals.pending('c1')).toEqual([]);
			expect(await storage.approvals.decision('c1', 'a', 0)).toEqual({ action: 'approve' });
			expect(await storage.approvals.decision('c1', 'b', 0)).toEqual({ action: 'edit', args: { target: 'edited' }, reason: 'safer' });
			expect(await storage.allowedTools.list()).toEqual([{ tool: 'tool-a', since: T(2) }]);
			await storage.runs.finish('decided', { status: 'completed', messageCount: 4 }, T(3));
			await storage.approvals.denyPending('c1', 'too late', T(4));
			expect(await storage.approvals.decision('c1', 'a', 0)).toEqual({ action: 'approve' });
		});

		it('changes nothing when the decisions are refused or a run holds the conversation', async () => {
			await conversation('c1');
			await asRun(storage, 'c1', 'r1', () => storage.approvals.request('c1', 'r1', [ask('a')], T(1), T(100)));
			const refusal = new Error('refused');
			await expect(
				storage.approvals.decideWithRun('c1', 'refused', T(2), () => {
					throw refusal;
				})
			).rejects.toBe(refusal);
			await storage.runs.claim('c1', 'busy', T(3), 'message', 'moved on');
			let checked = false;
			const late = await opened.other.approvals.decideWithRun('c1', 'late', T(4), (pending) => {
				checked = true;
				return decideAll('approve')(pending);
			});
			expect({ late, checked }).toEqual({ late: 'busy', checked: false });
			expect((await storage.runs.list('c1')).map((run) => run.id)).toEqual(['busy', 'r1', 'first-c1']);
			expect(await storage.approvals.pending('c1')).toHaveLength(1);
			expect(await storage.allowedTools.list()).toEqual([]);
		});

		it('finds the threads whose calls expired, and denies what waits with one reason', async () => {
			await conversation('c1');
			await conversation('c2');
			await asRun(storage, 'c1', 'r1', () => storage.approvals.request('c1', 'r1', [ask('a'), ask('b')], T(1), T(10)));
			await asRun(storage, 'c2', 'r2', () => storage.approvals.request('c2', 'r2', [ask('c')], T(1), T(20)));
			expect(await storage.approvals.nextExpiryAt()).toBe(T(10));
			expect(await storage.approvals.expiredThreads(T(9))).toEqual([]);
			expect(await storage.approvals.expiredThreads(T(10))).toEqual(['c1']);
			await storage.approvals.denyPending('c1', 'not approved in time', T(11));
			expect(await storage.approvals.decision('c1', 'b', 0)).toEqual({ action: 'deny', reason: 'not approved in time' });
			expect(await storage.approvals.expiredThreads(T(30))).toEqual(['c2']);
			expect(await storage.approvals.nextExpiryAt()).toBe(T(20));
			// A crash left the decided call's attempt unfinished: the next attempt is a question of its own.
			await asRun(storage, 'c1', 'r3', () => storage.approvals.request('c1', 'r3', [ask('a', 1)], T(12), T(40)));
			expect((await storage.approvals.pending('c1')).map((p) => p.toolCallId)).toEqual(['a']);
			expect(await storage.approvals.decision('c1', 'a', 1)).toBeUndefined();
			await storage.approvals.denyPending('c2', 'moved on', T(13));
			await storage.approvals.denyPending('c1', 'moved on', T(13));
			expect(await storage.approvals.nextExpiryAt()).toBeNull();
		});

		it('allows a tool until it is revoked; allowing it again keeps its first time', async () => {
			await storage.allowedTools.allow('write', T(1));
			await opened.other.allowedTools.allow('write', T(2));
			await storage.allowedTools.allow('delete', T(3));
			expect(await storage.allowedTools.list()).toEqual([
				{ tool: 'delete', since: T(3) },
				{ tool: 'write', since: T(1) }
			]);
			expect(await storage.allowedTools.has('write')).toBe(true);
			expect(await storage.allowedTools.revoke('write')).toBe(true);
			expect(await storage.allowedTools.revoke('write')).toBe(false);
			expect(await opened.other.allowedTools.has('write')).toBe(false);
		});

		it('deletes a conversation with its runs, queue, journal and checkpoints, and nothing of another', async () => {
			await conversation('gone');
			await conversation('kept');
			for (const id of ['gone', 'kept']) {
				await storage.queue.add(id, `queued-${id}`, 'later', T(1));
				await asRun(storage, id, `asks-${id}`, async () => {
					await storage.approvals.request(id, `asks-${id}`, [ask('call')], T(1), T(100));
					const intent = { threadId: id, toolCallId: 'call', runId: `asks-${id}`, step: 1, tool: 't', argsHash: 'h', callHash: null, idempotencyKey: 'k', messageId: null };
					await storage.journal.recordIntent(intent, T(1), false);
				});
				const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) };
				await opened.saver.put({ configurable: { thread_id: id, checkpoint_ns: '' } }, checkpoint, { source: 'input', step: -1, parents: {} }, {});
			}
			await storage.conversations.delete('gone');
			expect(await storage.conversations.get('gone')).toBeUndefined();
			expect(await storage.runs.list('gone')).toEqual([]);
			expect(await storage.queue.list('gone')).toEqual([]);
			expect(await storage.journal.get('gone', 'call')).toBeUndefined();
			expect(await storage.approvals.pending('gone')).toEqual([]);
			expect(await opened.saver.getTuple({ configurable: { thread_id: 'gone', checkpoint_ns: '' } })).toBeUndefined();
			expect(await storage.conversations.delete('gone')).toBe('not-found');
			expect(await storage.runs.list('kept')).toHaveLength(2);
			expect(await storage.queue.list('kept')).toHaveLength(1);
			expect(await storage.journal.get('kept', 'call')).toBeDefined();
			expect(await storage.approvals.pending('kept')).toHaveLength(1);
			expect(await opened.saver.getTuple({ configurable: { thread_id: 'kept', checkpoint_ns: '' } })).toBeDefined();
		});

		it('keeps MAX_CONCURRENT_RUNS and MAX_QUEUED_MESSAGES over both connections', async () => {
			const limited = await open({ maxConcurrentRuns: 2, maxQueuedMessages: 2 });
			try {
				const [one, two] = [limited.storage, limited.other];
				expect(await one.conversations.createWithRun('a', 'ra', 'a', T(0))).toBe('claimed');
				await one.conversations.createWithRun('b', 'rb', 'b', T(0));
				await one.runs.finish('rb', { status: 'completed', messageCount: 2 }, T(1));
				// One place left, two instances asking for it at once: one run gets it.
				await two.conversations.createWithRun('c', 'rc', 'c', T(1));
				await two.runs.finish('rc', { status: 'completed', messageCount: 2 }, T(1));
				const claims = await Promise.all([one.runs.claim('b', 'rb2', T(2), 'resume', null), two.runs.claim('c', 'rc2', T(2), 'resume', null)]);
				expect([...claims].sort()).toEqual(['claimed', 'full']);
				expect(await two.conversations.createWithRun('d', 'rd', 'd', T(3))).toBe('full');
				expect(await one.conversations.exists('d')).toBe(false);
				// At the cap, a busy conversation answers busy, so enqueue and interrupt work as below it.
				expect(await one.runs.claim('a', 'ra2', T(3), 'message', 'again')).toBe('busy');
				const idle = claims[0] === 'full' ? 'b' : 'c';
				await one.queue.add(idle, 'q1', 'later', T(3));
				const queuedRun = { runId: 'rq', now: T(4), trigger: 'message' as const, input: 'later' };
				expect(await two.queue.claimQueued(idle, 'q1', queuedRun)).toBe('full');
				expect(await one.approvals.decideWithRun(idle, 'rd2', T(4), () => [])).toBe('full');
				await one.queue.add(idle, 'q2', 'later', T(4));
				expect(await two.queue.add(idle, 'q3', 'too many', T(4))).toMatchObject({ refused: 'queue-full' });
				expect((await one.queue.list(idle)).map((m) => m.id)).toEqual(['q1', 'q2']);
				await one.runs.finish('ra', { status: 'completed', messageCount: 2 }, T(5));
				expect(await two.queue.claimQueued(idle, 'q1', { ...queuedRun, now: T(6) })).toBe('claimed');
				expect((await one.queue.list(idle)).map((m) => m.id)).toEqual(['q2']);
			} finally {
				await limited.close();
			}
		});

		it('finds earlier successful calls by tool and arguments, oldest first, over every branch', async () => {
			await conversation('c1');
			const call = (toolCallId: string, argsHash: string, messageId: string) => ({
				threadId: 'c1',
				toolCallId,
				runId: 'r',
				step: 1,
				tool: 'write',
				argsHash,
				callHash: argsHash,
				idempotencyKey: `c1:${toolCallId}`,
				messageId
			});
			await asRun(storage, 'c1', 'r', async () => {
				await storage.journal.recordIntent(call('a', 'h1', 'ai-a'), T(1), false);
				await storage.journal.recordIntent(call('b', 'h1', 'ai-b'), T(2), false);
				await storage.journal.recordIntent(call('c', 'h2', 'ai-c'), T(3), false);
				await storage.journal.recordIntent(call('d', 'h1', 'ai-d'), T(4), false);
				for (const id of ['a', 'b', 'c']) await storage.journal.recordOutcome('c1', id, 'r', { outcome: 'success', result: id }, T(5));
			});
			expect((await opened.other.journal.succeededWith('c1', 'write', 'h1')).map((e) => [e.toolCallId, e.messageId])).toEqual([
				['a', 'ai-a'],
				['b', 'ai-b']
			]);
		});

		it('starts a branch with the run that claims it, switches branches, and queues edits and regenerates', async () => {
			await conversation('c1');
			expect(await storage.branches.head('c1')).toBeUndefined();
			expect(await storage.runs.claim('c1', 'edit-1', T(1), 'edit', 'edited', { branchFrom: 'checkpoint-3', model: 'ollama/other' })).toBe('claimed');
			expect(await opened.other.branches.head('c1')).toBe('checkpoint-3');
			expect(await opened.other.conversations.model('c1')).toBe('ollama/other');
			expect(((await storage.conversations.firstPage(1000)).conversations)[0]).toMatchObject({ id: 'c1', updatedAt: T(1) });
			// A claim refused starts no branch.
			expect(await storage.runs.claim('c1', 'edit-2', T(2), 'edit', 'again', { branchFrom: 'checkpoint-9', model: 'ollama/refused' })).toBe('busy');
			expect(await storage.branches.head('c1')).toBe('checkpoint-3');
			expect(await storage.conversations.model('c1')).toBe('ollama/other');
			await storage.runs.finish('edit-1', { status: 'completed', messageCount: 6 }, T(3));
			await storage.runs.claim('c1', 'holding', T(3), 'resume', null);
			expect(await storage.branches.switchTo('c1', 'checkpoint-8', { messageCount: 9, updatedAt: T(9) })).toBe('busy');
			await storage.approvals.request('c1', 'holding', [{ toolCallId: 'w1', attempt: 0, tool: 'write', args: {}, reason: { kind: 'policy', message: 'asks' } }], T(3), T(99));
			await storage.runs.finish('holding', { status: 'waiting', messageCount: 6 }, T(3));
			expect(await storage.branches.switchTo('c1', 'checkpoint-8', { messageCount: 9, updatedAt: T(9) })).toBe('waiting');
			await storage.approvals.denyPending('c1', 'moved on', T(3));
			expect(await storage.branches.head('c1')).toBe('checkpoint-3');
			expect(await storage.branches.switchTo('c1', 'checkpoint-7', { messageCount: 4, updatedAt: undefined })).toBe('switched');
			expect({ head: await storage.branches.head('c1'), after: await storage.branches.switchedAfterRun('c1') }).toEqual({
				head: 'checkpoint-7',
				after: 'holding'
			});
			expect(await storage.conversations.get('c1')).toMatchObject({ messageCount: 4, updatedAt: T(3) });
			await storage.runs.claim('c1', 'busy', T(4), 'message', 'hi');
			await storage.queue.add('c1', 'q-edit', 'better question', T(5), { editOf: 'human-1', model: 'openai/gpt' });
			await storage.queue.add('c1', 'q-regen', '', T(5), { regenerate: 'ai-2' });
			expect(await storage.queue.list('c1')).toEqual([
				{ id: 'q-edit', message: 'better question', createdAt: T(5), editOf: 'human-1', model: 'openai/gpt' },
				{ id: 'q-regen', message: '', createdAt: T(5), regenerate: 'ai-2' }
			]);
			await storage.runs.finish('busy', { status: 'completed', messageCount: 6 }, T(6));
			const edit = { runId: 'q-edit-run', now: T(7), trigger: 'edit' as const, input: 'better question', branchFrom: 'checkpoint-1', model: 'openai/gpt' };
			expect(await opened.other.queue.claimQueued('c1', 'q-edit', edit)).toBe('claimed');
			expect(await storage.branches.head('c1')).toBe('checkpoint-1');
			expect(await storage.conversations.get('c1')).toMatchObject({ model: 'openai/gpt', updatedAt: T(7) });
			expect((await storage.queue.list('c1')).map((m) => m.id)).toEqual(['q-regen']);
			await storage.queue.delete('q-regen');
			expect(await storage.queue.list('c1')).toEqual([]);
		});

		it('refuses to delete a conversation a run holds, changing nothing', async () => {
			await conversation('c1');
			await storage.runs.claim('c1', 'r1', T(1), 'message', 'hi');
			expect(await opened.other.conversations.delete('c1')).toBe('running');
			expect(await storage.conversations.exists('c1')).toBe(true);
			expect(await storage.runs.get('r1')).toMatchObject({ status: 'running' });
		});

		describe('transfer', () => {
			const records = (id: string): ConversationRecords => ({
				conversation: { id, title: 'Moved', createdAt: T(0), updatedAt: T(9), messageCount: 2, model: 'ollama/qwen3' },
				branch: { head: 'cp-2', switchedAfterRun: `${id}-r2` },
				runs: [
					{ id: `${id}-r1`, status: 'completed', trigger: 'message', input: 'hi', error: null, startedAt: T(1), finishedAt: T(2) },
					{ id: `${id}-r2`, status: 'failed', trigger: 'regenerate', input: null, error: { code: 'MODEL_UNREACHABLE', message: 'down' }, startedAt: T(3), finishedAt: T(4) }
				],
				journal: [
					{
						toolCallId: 'call-1', runId: `${id}-r1`, step: 2, tool: 'test__effect', argsHash: 'h1', callHash: 'h0', idempotencyKey: `${id}:call-1`,
						messageId: 'ai-1', attempts: 1, outcome: 'success', result: 'saved', intentAt: T(1), outcomeAt: T(2)
					}
				],
				approvals: [
					{
						toolCallId: 'call-1', attempt: 0, runId: `${id}-r1`, tool: 'test__effect', args: '{}', reasonKind: 'policy', reason: 'writes',
						requestedAt: T(1), expiresAt: T(50), decision: 'approve', decidedArgs: null, decisionReason: null, decidedAt: T(2)
					}
				]
			});
			const checkpoint = (id: string, parentId: string | null, messages: string[]): ThreadCheckpoint => ({
				ns: '',
				checkpoint: { ...emptyCheckpoint(), id, channel_values: { messages }, channel_versions: { messages: messages.length } },
				metadata: { source: 'loop', step: messages.length, parents: {} },
				parentId,
				writes: parentId === null ? [] : [['task-1', 'messages', [`after ${id}`]]]
			});
			const checkpoints = [checkpoint('cp-1', null, ['hi']), checkpoint('cp-2', 'cp-1', ['hi', 'hello'])];

			it('creates a conversation with its rows and checkpoints, read back the same, and refuses a taken id, changing nothing', async () => {
				expect(await storage.transfer.read('t1')).toBeUndefined();
				expect(await storage.transfer.create(records('t1'), checkpoints)).toEqual({ status: 'created' });
				expect(await opened.other.transfer.read('t1')).toEqual(records('t1'));
				expect(await storage.branches.head('t1')).toBe('cp-2');
				expect(await storage.journal.get('t1', 'call-1')).toMatchObject({ outcome: 'success', result: 'saved', messageId: 'ai-1' });
				expect((await storage.runs.list('t1')).map((r) => r.id)).toEqual(['t1-r2', 't1-r1']);
				const tip = await opened.saver.getTuple({ configurable: { thread_id: 't1', checkpoint_ns: '' } });
				expect(tip?.checkpoint.channel_values).toEqual({ messages: ['hi', 'hello'] });
				expect(tip?.parentConfig?.configurable?.checkpoint_id).toBe('cp-1');
				expect(tip?.pendingWrites).toEqual([['task-1', 'messages', ['after cp-2']]]);

				const other = { ...records('t1'), conversation: { ...records('t1').conversation, title: 'Other' } };
				expect(await opened.other.transfer.create(other, [checkpoint('cp-9', null, ['x'])])).toEqual({ status: 'conversation-taken' });
				expect(await storage.transfer.read('t1')).toEqual(records('t1'));
				expect(await opened.saver.getTuple({ configurable: { thread_id: 't1', checkpoint_ns: '', checkpoint_id: 'cp-9' } })).toBeUndefined();
			});

			it('writes nothing when a row is refused after the checkpoints were put: rows and checkpoints are one transaction', async () => {
				// The engine's CHECK on an approval's reason refuses its row, written after every checkpoint.
				const refused = records('t2');
				refused.approvals[0]!.reasonKind = 'no such reason' as never;
				await expect(storage.transfer.create(refused, checkpoints)).rejects.toThrow(/constraint/i);
				expect(await storage.transfer.read('t2')).toBeUndefined();
				expect(await storage.runs.get('t2-r1')).toBeUndefined();
				expect(await opened.saver.getTuple({ configurable: { thread_id: 't2', checkpoint_ns: '' } })).toBeUndefined();
				expect(await storage.transfer.create(records('t2'), checkpoints)).toEqual({ status: 'created' });
			});

			it("refuses a free conversation id whose run ids are another conversation's, naming every one, changing nothing", async () => {
				expect(await storage.transfer.create(records('t3'), checkpoints)).toEqual({ status: 'created' });
				// t4's rows under t3's run ids: the conversation id is free, two of its runs are not.
				const clash = records('t4');
				clash.runs = [...records('t3').runs, { ...clash.runs[0]!, id: 't4-own' }];
				clash.journal[0]!.runId = 't4-own';
				clash.approvals[0]!.runId = 't4-own';
				expect(await opened.other.transfer.create(clash, checkpoints)).toEqual({ status: 'runs-taken', runIds: ['t3-r1', 't3-r2'] });
				expect(await storage.transfer.read('t4')).toBeUndefined();
				expect(await storage.runs.get('t4-own')).toBeUndefined();
				expect(await storage.journal.get('t4', 'call-1')).toBeUndefined();
				expect(await opened.saver.getTuple({ configurable: { thread_id: 't4', checkpoint_ns: '' } })).toBeUndefined();
				expect(await storage.transfer.read('t3')).toEqual(records('t3'));
			});
		});

		it('keeps a session until its expiry or its deletion, seen alike through another connection', async () => {
			await storage.sessions.create('digest-a', T(10));
			await storage.sessions.create('digest-b', T(20));
			await expect(storage.sessions.create('digest-a', T(30))).rejects.toThrow();
			expect(await opened.other.sessions.isLive('digest-a', T(9))).toBe(true);
			expect(await storage.sessions.isLive('digest-a', T(10))).toBe(false);
			expect(await storage.sessions.isLive('digest-unknown', T(0))).toBe(false);
			expect(await opened.other.sessions.delete('digest-b')).toBe(true);
			expect(await storage.sessions.isLive('digest-b', T(0))).toBe(false);
			expect(await storage.sessions.delete('digest-b')).toBe(false);
			await storage.sessions.create('digest-c', T(40));
			expect(await storage.sessions.prune(T(10))).toBe(1);
			expect(await storage.sessions.isLive('digest-c', T(39))).toBe(true);
		});

		describeThreadStorage(() => opened);
		it('keeps a remote server\'s client and tokens, seen through another connection, and forgets them', async () => {
			expect(await storage.mcpAuth.get('docs')).toBeUndefined();
			await storage.mcpAuth.saveClient('docs', '{"client_id":"c"}', T(1));
			await storage.mcpAuth.saveTokens('docs', '{"access_token":"a"}', T(60), T(2));
			expect(await opened.other.mcpAuth.get('docs')).toEqual({ client: '{"client_id":"c"}', tokens: '{"access_token":"a"}', expiresAt: T(60) });
			await storage.mcpAuth.saveTokens('docs', '{"access_token":"b"}', null, T(3));
			expect(await storage.mcpAuth.get('docs')).toEqual({ client: '{"client_id":"c"}', tokens: '{"access_token":"b"}', expiresAt: null });
			expect(await opened.other.mcpAuth.forget('docs', 'tokens')).toBe(true);
			expect(await storage.mcpAuth.forget('docs', 'tokens')).toBe(false);
			expect(await storage.mcpAuth.get('docs')).toEqual({ client: '{"client_id":"c"}', tokens: null, expiresAt: null });
			expect(await storage.mcpAuth.forget('docs', 'all')).toBe(true);
			expect(await storage.mcpAuth.get('docs')).toBeUndefined();
		});

		it('gives a sign-in back once for its state, never after its expiry, whichever connection takes it', async () => {
			const pending = { server: 'docs', verifier: 'v1', redirectUri: 'http://127.0.0.1/api/mcp/oauth/callback' };
			await storage.mcpAuth.beginSignIn('state-1', pending, T(30));
			await storage.mcpAuth.beginSignIn('state-2', { ...pending, verifier: 'v2' }, T(10));
			await expect(storage.mcpAuth.beginSignIn('state-1', pending, T(30))).rejects.toThrow();
			expect(await storage.mcpAuth.takeSignIn('state-1', 'other-server', T(5))).toBeUndefined();
			const [first, second] = await Promise.all([storage.mcpAuth.takeSignIn('state-1', 'docs', T(5)), opened.other.mcpAuth.takeSignIn('state-1', 'docs', T(5))]);
			expect([first, second].filter(Boolean)).toEqual([pending]);
			expect(await storage.mcpAuth.takeSignIn('state-2', 'docs', T(10))).toBeUndefined();
			expect(await storage.mcpAuth.takeSignIn('state-2', 'docs', T(0))).toBeUndefined();
			expect(await storage.mcpAuth.takeSignIn('unknown', 'docs', T(0))).toBeUndefined();
		});

		it('refreshes under a lock: a second refresh, through another connection, waits and sees the first one\'s tokens; a failed one changes nothing', async () => {
			await storage.mcpAuth.saveTokens('docs', 'old', T(10), T(0));
			let release!: () => void;
			let entered!: () => void;
			const held = new Promise<void>((r) => (release = r));
			const inside = new Promise<void>((r) => (entered = r));
			const seen: (string | null | undefined)[] = [];
			const first = storage.mcpAuth.refreshUnderLock('docs', T(1), async (current) => {
				seen.push(current?.tokens);
				entered();
				await held;
				return { tokens: 'new', expiresAt: T(70) };
			});
			// The first holds the lock; the second asks through another connection, as another instance would.
			await inside;
			const second = opened.other.mcpAuth.refreshUnderLock('docs', T(1), async (current) => {
				seen.push(current?.tokens);
				return current?.tokens === 'old' ? { tokens: 'newer', expiresAt: T(80) } : 'keep';
			});
			release();
			expect(await first).toMatchObject({ tokens: 'new', expiresAt: T(70) });
			expect(await second).toMatchObject({ tokens: 'new', expiresAt: T(70) });
			expect(seen).toEqual(['old', 'new']);
			await expect(storage.mcpAuth.refreshUnderLock('docs', T(2), async () => Promise.reject(new Error('token endpoint down')))).rejects.toThrow(
				'token endpoint down'
			);
			expect(await storage.mcpAuth.get('docs')).toMatchObject({ tokens: 'new' });
			expect(await opened.other.mcpAuth.refreshUnderLock('docs', T(3), async () => 'forget')).toMatchObject({ tokens: null, expiresAt: null });
		});
	});
}
