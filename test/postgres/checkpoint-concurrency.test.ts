// Two savers (two processes' pools) on one database: puts to one thread from both at once are taken
// one at a time, so the second to extend a parent branches instead of colliding, and each process
// reads the other's checkpoints right whatever its item cache holds.

import pg from 'pg';
import { HumanMessage } from '@langchain/core/messages';
import { emptyCheckpoint, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DeltaPostgresSaver, migratePostgres } from '../../src/lib/server/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;
let pools: pg.Pool[];
let savers: DeltaPostgresSaver[];
beforeAll(async () => {
	database = await createTestDatabase(inject('postgresUrl'), 'concurrency');
	pools = [0, 1].map(() => new pg.Pool({ connectionString: database.url, max: 4, pipeline: true }));
	await migratePostgres(pools[0]!);
	savers = pools.map((pool) => new DeltaPostgresSaver(pool));
});
afterAll(async () => {
	await Promise.all(pools.map((pool) => pool.end()));
	await database.drop();
});

const message = (id: string) => new HumanMessage({ id, content: `message ${id}` });
const metadata = { source: 'loop' as const, step: 0, parents: {} };

function checkpoint(messages: HumanMessage[], version: number): Checkpoint {
	return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: version } };
}

async function messageIds(saver: DeltaPostgresSaver, checkpointId: string): Promise<string[]> {
	const tuple = await saver.getTuple({ configurable: { thread_id: 't', checkpoint_ns: '', checkpoint_id: checkpointId } });
	return (tuple!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => m.id!);
}

describe('DeltaPostgresSaver shared by two processes', () => {
	it('puts racing to extend one parent both land, the second as a branch, each message stored once', async () => {
		const [a, b] = savers as [DeltaPostgresSaver, DeltaPostgresSaver];
		const root = checkpoint([message('m0')], 1);
		const rootConfig = await a.put({ configurable: { thread_id: 't', checkpoint_ns: '' } }, root, metadata, { messages: 1 });
		const fromA = checkpoint([message('m0'), message('a1')], 2);
		const fromB = checkpoint([message('m0'), message('b1')], 2);
		await Promise.all([a.put(rootConfig, fromA, metadata, { messages: 2 }), b.put(rootConfig, fromB, metadata, { messages: 2 })]);
		for (const saver of [a, b]) {
			expect(await messageIds(saver, fromA.id)).toEqual(['m0', 'a1']);
			expect(await messageIds(saver, fromB.id)).toEqual(['m0', 'b1']);
		}
		// B goes on from A's checkpoint: its new message joins the log A's checkpoint ends in.
		const next = checkpoint([message('m0'), message('a1'), message('b2')], 3);
		const fromAConfig = { configurable: { thread_id: 't', checkpoint_ns: '', checkpoint_id: fromA.id } };
		await b.put(fromAConfig, next, metadata, { messages: 3 });
		expect(await messageIds(a, next.id)).toEqual(['m0', 'a1', 'b2']);
		const counts = await pools[0]!.query<{ logs: number; items: number }>(
			`SELECT (SELECT COUNT(*)::int FROM lg_logs) AS logs, (SELECT COUNT(*)::int FROM lg_log_items) AS items`
		);
		expect(counts.rows[0]).toEqual({ logs: 2, items: 4 });
	});
});
