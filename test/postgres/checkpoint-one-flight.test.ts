// A put planned ahead from the saver's last put of its thread goes whole in one flight: BEGIN, the
// lock, a write guarded by what the plan took the thread to be, COMMIT (issue 26). The step's
// writes, held for the put LangGraph calls next, ride in that write and commit with it. What the
// server is sent is read from the statements themselves, not from timing.

import pg from 'pg';
import type { HumanMessage } from '@langchain/core/messages';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { LINK } from '../../src/lib/server/checkpoint/link-encoding.js';
import { RunFencedError } from '../../src/lib/server/postgres/app/run-fence.js';
import { DeltaPostgresSaver } from '../../src/lib/server/postgres/index.js';
import { loopMetadata, messageCheckpoints, threadAt } from '../support/message-checkpoints.js';
import { migratedTestDatabase, type MigratedDatabase } from '../support/postgres.js';

let opened: MigratedDatabase;
let pool: pg.Pool;
let admin: pg.Client;
beforeAll(async () => {
	opened = await migratedTestDatabase(inject('postgresUrl'), 'oneflight', { application_name: 'saver' });
	pool = opened.pool;
	admin = await opened.client();
});
afterAll(() => opened.close());
afterEach(() => {
	vi.restoreAllMocks();
});

const { message, checkpoint } = messageCheckpoints();
const metadata = loopMetadata;
const at = threadAt;

/** The statements the saver's connections send while `work` runs: BEGIN, COMMIT, or a named statement's name without its number. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
	const sent: string[] = [];
	const query = pg.Client.prototype.query;
	vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
		const [config] = args as [string | pg.QueryConfig];
		sent.push(typeof config === 'string' ? config : (config.name?.replace(/_\d+$/, '') ?? config.text.trim().split(/\s+/)[0]!));
		return (query as (...a: unknown[]) => unknown).apply(this, args);
	} as typeof query);
	await work();
	vi.restoreAllMocks();
	return sent;
}

const encodingsOf = async (taskId: string) =>
	(await admin.query<{ encoding: number }>(`SELECT encoding FROM lg_writes WHERE task_id = $1`, [taskId])).rows.map((row) => row.encoding);
const latestIds = async (saver: DeltaPostgresSaver, thread: string) =>
	((await saver.getTuple(at(thread)))!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => m.id);

describe('DeltaPostgresSaver: a put planned ahead, in one flight', () => {
	it('sends the lock and the guarded write together, with the step writes in it, stored as links', async () => {
		const saver = new DeltaPostgresSaver(pool);
		const root = checkpoint(['a0'], 1);
		const rootConfig = await saver.put(at('a'), root, metadata, { messages: 1 });
		const child = checkpoint(['a0', 'a1'], 2);
		// As LangGraph does at a step's end: the task's writes, then at once the step's checkpoint.
		const sent = await statementsOf(() =>
			Promise.all([saver.putWrites(rootConfig, [['messages', [message('a1')]]], 'task-a'), saver.put(rootConfig, child, metadata, { messages: 2 })])
		);
		expect(sent).toEqual(['BEGIN', 'sophos_put_lock', 'sophos_put_write_guarded', 'COMMIT']);
		expect(await encodingsOf('task-a')).toEqual([LINK.ITEMS]);
		const tuple = await new DeltaPostgresSaver(pool, { cacheItems: 0 }).getTuple(rootConfig);
		expect(tuple!.pendingWrites!.map(([task, channel, value]) => [task, channel, (value as HumanMessage[]).map((m) => m.id)])).toEqual([
			['task-a', 'messages', ['a1']]
		]);
		expect(await latestIds(saver, 'a')).toEqual(['a0', 'a1']);
	});

	it('commits the step writes with the put, not before it', async () => {
		const saver = new DeltaPostgresSaver(pool);
		const rootConfig = await saver.put(at('b'), checkpoint(['b0'], 1), metadata, { messages: 1 });
		// The put's write is held where only it is: inserting its checkpoint row.
		await admin.query('BEGIN; LOCK TABLE lg_checkpoints IN SHARE MODE');
		let written = false;
		let both: Promise<unknown> | undefined;
		try {
			both = Promise.all([
				saver.putWrites(rootConfig, [['messages', [message('b1')]]], 'task-b').then(() => (written = true)),
				saver.put(rootConfig, checkpoint(['b0', 'b1'], 2), metadata, { messages: 2 })
			]);
			await vi.waitFor(
				async () => {
					const { rows } = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'saver' AND wait_event_type = 'Lock'`);
					expect(rows).toHaveLength(1);
				},
				{ timeout: 30_000, interval: 20 }
			);
			expect(await encodingsOf('task-b')).toEqual([]);
			expect(written).toBe(false);
		} finally {
			await admin.query('COMMIT');
		}
		await both;
		expect(written).toBe(true);
		expect(await encodingsOf('task-b')).toEqual([LINK.ITEMS]);
	});

	it('sends writes no put takes in the same turn on their own, and the next put links them', async () => {
		const saver = new DeltaPostgresSaver(pool);
		const rootConfig = await saver.put(at('c'), checkpoint(['c0'], 1), metadata, { messages: 1 });
		expect(await statementsOf(() => saver.putWrites(rootConfig, [['messages', [message('c1')]]], 'task-c'))).toEqual(['sophos_pending_writes']);
		expect(await encodingsOf('task-c')).not.toEqual([LINK.ITEMS]);
		const sent = await statementsOf(() => saver.put(rootConfig, checkpoint(['c0', 'c1'], 2), metadata, { messages: 2 }));
		expect(sent).toEqual(['BEGIN', 'sophos_put_lock', 'sophos_put_write_guarded', 'COMMIT']);
		expect(await encodingsOf('task-c')).toEqual([LINK.ITEMS]);
	});

	it("holds a task's writes to a checkpoint whose put is in flight for the put chained after it", async () => {
		const saver = new DeltaPostgresSaver(pool);
		const rootConfig = await saver.put(at('g'), checkpoint(['g0'], 1), metadata, { messages: 1 });
		const input = checkpoint(['g0', 'g1'], 2);
		// As LangGraph does for a turn's first step: the input checkpoint's put goes out, the step's
		// task ends while it is in flight, and the step's put is chained behind it.
		const sent = await statementsOf(() => {
			const inputPut = saver.put(rootConfig, input, metadata, { messages: 2 });
			const writes = saver.putWrites(at('g', input.id), [['messages', [message('g2')]]], 'task-g');
			const stepPut = inputPut.then((inputConfig) => saver.put(inputConfig, checkpoint(['g0', 'g1', 'g2'], 3), metadata, { messages: 3 }));
			return Promise.all([writes, stepPut]);
		});
		const oneFlight = ['BEGIN', 'sophos_put_lock', 'sophos_put_write_guarded', 'COMMIT'];
		expect(sent).toEqual([...oneFlight, ...oneFlight]);
		expect(await encodingsOf('task-g')).toEqual([LINK.ITEMS]);
		expect(await latestIds(saver, 'g')).toEqual(['g0', 'g1', 'g2']);
	});

	it('sends writes held for a put in flight on their own once that put has failed, and loses none', async () => {
		const saver = new DeltaPostgresSaver(pool, {
			fence: (config) => (typeof config.configurable?.run_id === 'string' ? { runId: config.configurable.run_id, owner: 'me' } : undefined)
		});
		const rootConfig = await saver.put(at('h'), checkpoint(['h0'], 1), metadata, { messages: 1 });
		const input = checkpoint(['h0', 'h1'], 2);
		const refused = saver.put({ configurable: { ...rootConfig.configurable, run_id: 'run-gone' } }, input, metadata, { messages: 2 });
		let written = false;
		const writes = saver.putWrites(at('h', input.id), [['messages', [message('h2')]]], 'task-h').then(() => (written = true));
		await expect(refused).rejects.toBeInstanceOf(RunFencedError);
		// Held until the put they wait for has failed, then, with no put chained after it, sent alone
		// (outside any run) in a later turn of the event loop.
		expect(written).toBe(false);
		await writes;
		expect(await encodingsOf('task-h')).toHaveLength(1);
	});

	it('stores nothing where another saver changed the thread since, and plans again from its read', async () => {
		const ours = new DeltaPostgresSaver(pool);
		const root = checkpoint(['d0'], 1);
		await ours.put(at('d'), root, metadata, { messages: 1 });
		await new DeltaPostgresSaver(pool).put(at('d', root.id), checkpoint(['d0', 'd1'], 2), metadata, { messages: 2 });
		const fork = checkpoint(['d0', 'x1'], 2);
		const sent = await statementsOf(() => ours.put(at('d', root.id), fork, metadata, { messages: 2 }));
		expect(sent.slice(0, 4)).toEqual(['BEGIN', 'sophos_put_lock', 'sophos_put_write_guarded', 'COMMIT']);
		// A fork of the log theirs appended to: a log of its own.
		expect(sent.slice(4)).toEqual(['BEGIN', 'sophos_put_lock', 'sophos_put_read', expect.stringMatching(/^INSERT INTO lg_logs /), 'sophos_put_write', 'COMMIT']);
		const fresh = new DeltaPostgresSaver(pool, { cacheItems: 0 });
		const ids = async (id: string) => ((await fresh.getTuple(at('d', id)))!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => m.id);
		expect(await ids(fork.id)).toEqual(['d0', 'x1']);
		expect((await admin.query(`SELECT count(*)::int AS n FROM lg_checkpoints c JOIN lg_threads t USING (thread_key) WHERE t.thread_id = 'd'`)).rows[0].n).toBe(3);
	});

	it('refuses the put and the writes riding it for a run no longer held, and stores neither', async () => {
		const saver = new DeltaPostgresSaver(pool, {
			fence: (config) => (typeof config.configurable?.run_id === 'string' ? { runId: config.configurable.run_id, owner: 'me' } : undefined)
		});
		const root = checkpoint(['e0'], 1);
		await saver.put(at('e'), root, metadata, { messages: 1 });
		const gone = at('e', root.id, 'run-gone');
		const child = checkpoint(['e0', 'e1'], 2);
		const [writes, put] = await Promise.allSettled([
			saver.putWrites(gone, [['messages', [message('e1')]]], 'task-e'),
			saver.put(gone, child, metadata, { messages: 2 })
		]);
		expect(put).toMatchObject({ status: 'rejected', reason: expect.any(RunFencedError) });
		expect(writes).toMatchObject({ status: 'rejected', reason: expect.any(RunFencedError) });
		expect(await encodingsOf('task-e')).toEqual([]);
		expect(await saver.getTuple(at('e', child.id))).toBeUndefined();
	});

	it('deletes a thread with the step writes held for it, which do not bring it back', async () => {
		const saver = new DeltaPostgresSaver(pool);
		const rootConfig = await saver.put(at('f'), checkpoint(['f0'], 1), metadata, { messages: 1 });
		const writing = saver.putWrites(rootConfig, [['messages', [message('f1')]]], 'task-f');
		await saver.deleteThread('f');
		await writing;
		expect((await admin.query(`SELECT 1 FROM lg_threads WHERE thread_id = 'f'`)).rows).toEqual([]);
		expect(await encodingsOf('task-f')).toEqual([]);
	});
});
