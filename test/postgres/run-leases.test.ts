// Run ownership across instances on PostgreSQL: three storages on one database stand in for three
// instances. A lease is made to end by moving it into the past, as an owner's silence would.

import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { DeltaPostgresSaver, postgresAppStorage } from '../../src/lib/server/postgres/index.js';
import { heldRun, RunFencedError } from '../../src/lib/server/postgres/app/run-fence.js';
import { postgresRunLeases } from '../../src/lib/server/postgres/app/run-leases.js';
import { migratedTestDatabase, type MigratedDatabase } from '../support/postgres.js';

const T = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const LIMITS = { maxConcurrentRuns: 10, maxQueuedMessages: 10 };

let opened: MigratedDatabase;
let pool: pg.Pool;
const instance = (instanceId: string) => {
	const owner = instanceId;
	const saver = new DeltaPostgresSaver(pool, {
		fence: (config) => {
			const runId = config.configurable?.run_id;
			return typeof runId === 'string' ? { runId, owner } : undefined;
		}
	});
	return { storage: postgresAppStorage(pool, LIMITS, { instanceId, leaseMs: 60_000 }), leases: postgresRunLeases(pool, { instanceId, leaseMs: 60_000 }), saver };
};
const expire = (runId: string) => pool.query(`UPDATE runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [runId]);

beforeAll(async () => {
	opened = await migratedTestDatabase(inject('postgresUrl'), 'leases', { max: 6 });
	pool = opened.pool;
});
afterAll(async () => {
	await opened.close();
});
beforeEach(() => pool.query('TRUNCATE conversations, lg_threads CASCADE'));

describe('run leases', () => {
	it('a live lease is never taken over; its owner renews it and alone writes the run', async () => {
		const [a, b] = [instance('a'), instance('b')];
		expect(await a.storage.conversations.createWithRun('c1', 'r1', 'hi', T(0))).toBe('claimed');
		expect(await b.leases.takeOverExpired()).toEqual([]);
		expect([...(await a.leases.renew(['r1']))]).toEqual(['r1']);
		expect([...(await b.leases.renew(['r1']))]).toEqual([]);
		expect(await b.storage.runs.finish('r1', { status: 'completed', messageCount: 2 }, T(1))).toBe(false);
		await b.storage.runs.releaseClaim('r1');
		expect(await a.storage.runs.get('r1')).toMatchObject({ status: 'running' });
		expect(await a.storage.runs.finish('r1', { status: 'completed', messageCount: 2 }, T(1))).toBe(true);
	});

	it('an ended lease is taken over by one instance, and the old owner can write nothing of the run after', async () => {
		const [a, b, c] = [instance('a'), instance('b'), instance('c')];
		await a.storage.conversations.createWithRun('c1', 'r1', 'hi', T(0));
		const intent = { threadId: 'c1', toolCallId: 'call', runId: 'r1', step: 1, tool: 'write', argsHash: 'h', callHash: 'h', idempotencyKey: 'c1:call', messageId: null };
		await a.storage.journal.recordIntent(intent, T(1), true);
		const at = { configurable: { thread_id: 'c1', checkpoint_ns: '', run_id: 'r1' } };
		const first = await a.saver.put(at, { ...emptyCheckpoint(), id: uuid6(-1) }, { source: 'input', step: -1, parents: {} }, {});
		await expire('r1');

		// Two instances at once: the row lock gives the run to one.
		const taken = await Promise.all([b.leases.takeOverExpired(), c.leases.takeOverExpired()]);
		expect(taken.flat()).toEqual([{ id: 'r1', conversationId: 'c1' }]);
		const heir = taken[0]!.length ? b : c;

		// The old owner wakes up: its heartbeat no longer holds the run, and every write is refused.
		expect([...(await a.leases.renew(['r1']))]).toEqual([]);
		await expect(a.storage.journal.recordOutcome('c1', 'call', 'r1', { outcome: 'success', result: 'late' }, T(2))).rejects.toBeInstanceOf(RunFencedError);
		await expect(a.storage.journal.recordIntent({ ...intent, toolCallId: 'call-2' }, T(2), false)).rejects.toBeInstanceOf(RunFencedError);
		await expect(
			a.storage.approvals.request('c1', 'r1', [{ toolCallId: 'x', attempt: 0, tool: 'write', args: {}, reason: { kind: 'policy', message: 'asks' } }], T(2), T(9))
		).rejects.toBeInstanceOf(RunFencedError);
		const next = { configurable: { ...at.configurable, checkpoint_id: first.configurable!.checkpoint_id } };
		await expect(a.saver.put(next, { ...emptyCheckpoint(), id: uuid6(-1) }, { source: 'loop', step: 0, parents: {} }, {})).rejects.toBeInstanceOf(RunFencedError);
		await expect(a.saver.putWrites(next, [['messages', ['late']]], 'task-1')).rejects.toBeInstanceOf(RunFencedError);
		expect(await a.storage.runs.finish('r1', { status: 'completed', messageCount: 9 }, T(3))).toBe(false);

		// Nothing of it reached the database; the heir records the outcome.
		expect(await heir.storage.journal.get('c1', 'call')).toMatchObject({ outcome: null, attempts: 1 });
		expect(await heir.storage.journal.get('c1', 'call-2')).toBeUndefined();
		expect(await heir.storage.approvals.pending('c1')).toEqual([]);
		const checkpoints = [];
		for await (const t of heir.saver.list({ configurable: { thread_id: 'c1' } })) checkpoints.push(t.checkpoint.id);
		expect(checkpoints).toEqual([first.configurable!.checkpoint_id]);
		expect((await pool.query(`SELECT count(*)::int AS n FROM lg_writes`)).rows[0].n).toBe(0);
		expect(await heir.storage.runs.finish('r1', { status: 'interrupted', error: { code: 'PROCESS_EXITED', message: 'gone' }, messageCount: 1 }, T(3))).toBe(true);
		expect(await a.storage.runs.get('r1')).toMatchObject({ status: 'interrupted' });
	});

	it('at start, an instance takes back at once what its previous process under its name left running', async () => {
		const [before, other] = [instance('host-1'), instance('host-2')];
		await before.storage.conversations.createWithRun('c1', 'r1', 'hi', T(0));
		await other.storage.conversations.createWithRun('c2', 'r2', 'hi', T(0));
		const restarted = instance('host-1');
		expect(await restarted.leases.takeOverAtStart()).toEqual([{ id: 'r1', conversationId: 'c1' }]);
		expect(await restarted.storage.runs.get('r2')).toMatchObject({ status: 'running' });
		expect([...(await other.leases.renew(['r2']))]).toEqual(['r2']);
	});

	it('a write in flight when the lease ends commits first; the takeover waits for it', async () => {
		const [a, b] = [instance('a'), instance('b')];
		await a.storage.conversations.createWithRun('c1', 'r1', 'hi', T(0));
		await expire('r1');
		const client = await pool.connect();
		try {
			await client.query('BEGIN');
			expect((await client.query(heldRun('$1', '$2'), ['r1', 'a'])).rowCount).toBe(1);
			const takeover = b.leases.takeOverExpired();
			// The takeover's update is blocked on the row the write holds, not finished.
			for (;;) {
				const { rows } = await pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`);
				if (rows[0].n > 0) break;
			}
			await client.query('COMMIT');
			expect(await takeover).toEqual([{ id: 'r1', conversationId: 'c1' }]);
		} finally {
			client.release();
		}
	});
	it('renews only the runs its owner still executes: one whose outcome was not written is left to expire and taken over', async () => {
		const [a, b] = [instance('a'), instance('b')];
		await a.storage.conversations.createWithRun('c1', 'r1', 'hi', T(0));
		await a.storage.conversations.createWithRun('c2', 'r2', 'hi', T(0));
		const leaseOf = async (id: string) => (await pool.query(`SELECT lease_until FROM runs WHERE id = $1`, [id])).rows[0].lease_until as Date;
		const before = await leaseOf('r2');
		// r2 ended on `a` without its outcome written (the database was away): `a` executes r1 alone.
		expect([...(await a.leases.renew(['r1']))]).toEqual(['r1']);
		expect(await leaseOf('r2')).toEqual(before);
		await expire('r2');
		expect(await b.leases.takeOverExpired()).toEqual([{ id: 'r2', conversationId: 'c2' }]);
	});
});
