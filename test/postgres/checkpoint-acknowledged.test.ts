// A run's puts and pending writes are acknowledged as they are sent, and committed before the run
// acts on them (checkpoint/acknowledged-writes.ts); anything else's put returns once committed.

import { emptyCheckpoint, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { DeltaPostgresSaver, postgresAppStorage } from '../../src/lib/server/postgres/index.js';
import { RunFencedError } from '../../src/lib/server/postgres/app/run-fence.js';
import { migratedTestDatabase, type MigratedDatabase } from '../support/postgres.js';
import { hasSettled } from '../support/settled.js';

const T = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

let opened: MigratedDatabase;
let pool: pg.Pool;
const saverOf = (owner: string) =>
	new DeltaPostgresSaver(pool, {
		fence: (config) => {
			const runId = config.configurable?.run_id;
			return typeof runId === 'string' ? { runId, owner } : undefined;
		}
	});
const run = { configurable: { thread_id: 'c1', checkpoint_ns: '', run_id: 'r1' } };
const unfenced = { configurable: { thread_id: 'c1', checkpoint_ns: '' } };
const checkpoint = (): Checkpoint => ({ ...emptyCheckpoint(), id: uuid6(-1) });
const stored = async (id: string) => (await pool.query('SELECT 1 FROM lg_checkpoints WHERE checkpoint_id = $1', [id])).rowCount;

/** Holds a row lock on another connection until released; `waited()` resolves once a backend waits on it. */
async function holdLock(sql: string) {
	const client = await pool.connect();
	await client.query('BEGIN');
	await client.query(sql);
	return {
		async waited() {
			for (;;) {
				const { rowCount } = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
				if (rowCount) return;
				await new Promise((resolve) => setTimeout(resolve, 5));
			}
		},
		async release() {
			await client.query('COMMIT');
			client.release();
		}
	};
}

beforeAll(async () => {
	opened = await migratedTestDatabase(inject('postgresUrl'), 'acknowledged', { max: 6 });
	pool = opened.pool;
});
afterAll(async () => {
	await opened.close();
});
beforeEach(async () => {
	await pool.query('TRUNCATE conversations, lg_threads CASCADE');
	await postgresAppStorage(pool, { maxConcurrentRuns: 10, maxQueuedMessages: 10 }, { instanceId: 'a', leaseMs: 60_000 }).conversations.createWithRun('c1', 'r1', 'hi', T(0));
});

describe('writes acknowledged to a run', () => {
	it("a run's put returns before it commits; committed() and settled() wait for it", async () => {
		const saver = saverOf('a');
		const lock = await holdLock(`SELECT 1 FROM runs WHERE id = 'r1' FOR UPDATE`);
		const first = checkpoint();
		// The put's fence waits on the run's row, so it cannot commit before the lock is let go.
		await saver.put(run, first, { source: 'input', step: -1, parents: {} }, {});
		await saver.putWrites({ configurable: { ...run.configurable, checkpoint_id: first.id } }, [['messages', ['hello']]], 'task-1');
		await lock.waited();
		expect(await stored(first.id)).toBe(0);
		const committed = saver.committed('c1');
		const settled = saver.settled('c1');
		expect(await hasSettled(committed)).toBe(false);
		expect(await hasSettled(settled)).toBe(false);
		await lock.release();
		await expect(committed).resolves.toBeUndefined();
		await settled;
		const read = await saver.getTuple(unfenced);
		expect(read?.checkpoint.id).toBe(first.id);
		expect(read?.pendingWrites).toEqual([['task-1', 'messages', ['hello']]]);
	});

	it('anything else’s put returns only once it has committed', async () => {
		const saver = saverOf('a');
		const first = checkpoint();
		await saver.put(unfenced, first, { source: 'update', step: 0, parents: {} }, {});
		expect(await stored(first.id)).toBe(1);
		const lock = await holdLock(`SELECT 1 FROM lg_threads WHERE thread_id = 'c1' FOR UPDATE`);
		const next = checkpoint();
		const put = saver.put({ configurable: { ...unfenced.configurable, checkpoint_id: first.id } }, next, { source: 'update', step: 1, parents: {} }, {});
		await lock.waited();
		expect(await hasSettled(put)).toBe(false);
		await lock.release();
		await put;
		expect(await stored(next.id)).toBe(1);
	});

	it("a refused put reaches the run at committed(), once", async () => {
		const saver = saverOf('b');
		await saver.put(run, checkpoint(), { source: 'input', step: -1, parents: {} }, {});
		await expect(saver.committed('c1')).rejects.toBeInstanceOf(RunFencedError);
		await expect(saver.committed('c1')).resolves.toBeUndefined();
		expect((await pool.query('SELECT 1 FROM lg_checkpoints')).rowCount).toBe(0);
	});

	it('a put on top of one that failed fails with it, and stores nothing without its parent', async () => {
		const saver = saverOf('a');
		const parent = checkpoint();
		// PostgreSQL's jsonb takes no NUL character: the parent's write fails after it was acknowledged.
		await saver.put(run, parent, { source: 'input', step: -1, parents: {}, note: '\u0000' } as never, {});
		const child = checkpoint();
		await saver.put({ configurable: { ...run.configurable, checkpoint_id: parent.id } }, child, { source: 'loop', step: 0, parents: {} }, {});
		await expect(saver.committed('c1')).rejects.toThrow();
		expect(await stored(parent.id)).toBe(0);
		expect(await stored(child.id)).toBe(0);
		// The thread goes on from what it holds.
		const again = checkpoint();
		await saver.put(run, again, { source: 'input', step: -1, parents: {} }, {});
		await saver.committed('c1');
		expect(await stored(again.id)).toBe(1);
	});
});
