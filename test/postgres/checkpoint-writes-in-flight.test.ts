// A put to a thread already stored opens its transaction while the step's writes are still in
// flight (issue 26): it waits for them before its own write, links the messages they hold to the
// items it appends, and reads back what was sent.

import pg from 'pg';
import { HumanMessage } from '@langchain/core/messages';
import { emptyCheckpoint, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { LINK } from '../../src/lib/server/checkpoint/link-encoding.js';
import { DeltaPostgresSaver } from '../../src/lib/server/postgres/index.js';
import { migratedTestDatabase, type MigratedDatabase } from '../support/postgres.js';

let opened: MigratedDatabase;
let pool: pg.Pool;
let admin: pg.Client;
/** Reads pg_stat_activity outside the admin's transaction, which would see one snapshot of it throughout. */
let watcher: pg.Client;
beforeAll(async () => {
	opened = await migratedTestDatabase(inject('postgresUrl'), 'inflight', { application_name: 'saver' });
	pool = opened.pool;
	admin = await opened.client();
	watcher = await opened.client();
});
afterAll(() => opened.close());

const message = (id: string) => new HumanMessage({ id, content: `message ${id}, long enough to be worth a link` });
const metadata = { source: 'loop' as const, step: 0, parents: {} };
const checkpoint = (messages: HumanMessage[], version: number): Checkpoint => ({
	...emptyCheckpoint(),
	id: uuid6(-1),
	channel_values: { messages },
	channel_versions: { messages: version }
});

/** The saver's connections, by what they are doing now. */
async function saverBackends(): Promise<{ state: string; waiting: boolean }[]> {
	const { rows } = await watcher.query<{ state: string; waiting: boolean }>(
		`SELECT state, coalesce(wait_event_type = 'Lock', false) AS waiting FROM pg_stat_activity WHERE application_name = 'saver' AND datname = current_database()`
	);
	return rows;
}

describe('DeltaPostgresSaver: a put while the step writes are in flight', () => {
	it('opens at once, writes only after the writes commit, and links the message they hold', async () => {
		const saver = new DeltaPostgresSaver(pool);
		const root = checkpoint([message('m0')], 1);
		const rootConfig = await saver.put({ configurable: { thread_id: 't', checkpoint_ns: '' } }, root, metadata, { messages: 1 });

		// The step's write is held where only it is: inserting into lg_writes (a put reads that table).
		await admin.query('BEGIN; LOCK TABLE lg_writes IN SHARE MODE');
		const child = checkpoint([message('m0'), message('m1')], 2);
		let put = false;
		let writing: Promise<void> | undefined;
		let putting: Promise<unknown> | undefined;
		try {
			writing = saver.putWrites(rootConfig, [['messages', [message('m1')]]], 'task-1');
			await vi.waitFor(async () => expect((await saverBackends()).filter((b) => b.waiting)).toHaveLength(1), { timeout: 30_000, interval: 20 });
			putting = saver.put(rootConfig, child, metadata, { messages: 2 }).then(() => (put = true));
			// The put has locked the thread and read its parent, and waits for the write, in its transaction.
			await vi.waitFor(async () => expect((await saverBackends()).map((b) => b.state)).toContain('idle in transaction'), {
				timeout: 30_000,
				interval: 20
			});
			expect((await admin.query('SELECT 1 FROM lg_checkpoints WHERE checkpoint_id = $1', [child.id])).rowCount).toBe(0);
			expect(put).toBe(false);
		} finally {
			await admin.query('COMMIT');
		}
		await Promise.all([writing, putting]);
		const { rows } = await admin.query<{ encoding: number }>(`SELECT encoding FROM lg_writes WHERE task_id = 'task-1'`);
		expect(rows).toEqual([{ encoding: LINK.ITEMS }]);
		const tuple = await saver.getTuple(rootConfig);
		expect(tuple!.pendingWrites!.map(([task, channel, value]) => [task, channel, (value as HumanMessage[]).map((m) => m.id)])).toEqual([
			['task-1', 'messages', ['m1']]
		]);
		const latest = await saver.getTuple({ configurable: { thread_id: 't', checkpoint_ns: '' } });
		expect((latest!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => m.id)).toEqual(['m0', 'm1']);
	});

	it('a put to a thread this saver has not seen stored links the writes it finds stored', async () => {
		const writer = new DeltaPostgresSaver(pool);
		const other = new DeltaPostgresSaver(pool);
		const root = checkpoint([message('n0')], 1);
		const rootConfig = await writer.put({ configurable: { thread_id: 'u', checkpoint_ns: '' } }, root, metadata, { messages: 1 });

		await admin.query('BEGIN; LOCK TABLE lg_writes IN SHARE MODE');
		try {
			const writing = other.putWrites(rootConfig, [['messages', [message('n1')]]], 'task-2');
			await vi.waitFor(async () => expect((await saverBackends()).filter((b) => b.waiting)).toHaveLength(1), { timeout: 30_000, interval: 20 });
			const putting = other.put(rootConfig, checkpoint([message('n0'), message('n1')], 2), metadata, { messages: 2 });
			await admin.query('COMMIT');
			await Promise.all([writing, putting]);
		} finally {
			await admin.query('ROLLBACK').catch(() => undefined);
		}
		const { rows } = await admin.query<{ encoding: number }>(`SELECT encoding FROM lg_writes WHERE task_id = 'task-2'`);
		expect(rows).toEqual([{ encoding: LINK.ITEMS }]);
	});
});
