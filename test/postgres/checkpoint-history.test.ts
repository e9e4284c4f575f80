// The checkpoint history contract on PostgreSQL (the shared suite; its SQLite run is in test/unit/),
// and what only a database shared by several processes asks: a put from another instance during a
// prune, a prune during a put, and a conversation's deletion taking its checkpoints with it.

import pg from 'pg';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { describe, expect, inject, it } from 'vitest';
import type { ChannelMap } from '../../src/lib/server/checkpoint/channel-map';
import { channelMapOf } from '../../src/lib/server/checkpoint/row-encoding';
import {
	DeltaPostgresSaver,
	migratePostgres,
	postgresAppStorage,
	postgresCheckpointHistory,
	type DeltaPostgresSaverOptions
} from '../../src/lib/server/postgres/index';
import { describeCheckpointHistory, type StoredCheckpoints } from '../support/checkpoint-history-suite';
import { deferred } from '../support/client-fakes';
import { createTestDatabase } from '../support/postgres';
import { buildAgentGraph, buildNestedGraph, humanTurn } from '../unit/sqlite/checkpoint-agent-graph';
import { normalise } from '../unit/sqlite/checkpoint-compare';

function storedCheckpoints(pool: pg.Pool): StoredCheckpoints {
	const THREAD = `lg_checkpoints c JOIN lg_threads t USING (thread_key) WHERE t.thread_id = $1`;
	const one = async <T>(sql: string, args: unknown[]) => (await pool.query(sql, args)).rows[0] as T;
	return {
		async channelMap(threadId, checkpointId): Promise<ChannelMap> {
			const row = await one<{ channels: Buffer; encoding: number }>(
				`SELECT c.channels, c.encoding FROM ${THREAD} AND t.checkpoint_ns = '' AND c.checkpoint_id = $2`,
				[threadId, checkpointId]
			);
			return channelMapOf(row);
		},
		async checkpointsPerNamespace(threadId) {
			const { rows } = await pool.query<{ n: number }>(
				`SELECT count(*)::int AS n FROM ${THREAD} GROUP BY t.checkpoint_ns ORDER BY t.checkpoint_ns`,
				[threadId]
			);
			return rows.map((row) => row.n);
		},
		async writeCount(threadId) {
			const row = await one<{ n: number }>(
				`SELECT count(*)::int AS n FROM lg_writes w JOIN lg_threads t USING (thread_key) WHERE t.thread_id = $1`,
				[threadId]
			);
			return row.n;
		},
		async logs() {
			return one(
				`SELECT (SELECT count(*)::int FROM lg_log_items) AS items, (SELECT count(*)::int FROM lg_logs) AS logs,
				   (SELECT max(length) FROM lg_logs) AS longest`,
				[]
			);
		}
	};
}

/** A database of its own; `pools` of them, as that many instances of the service. */
async function openDatabase(pools = 1, options: DeltaPostgresSaverOptions = {}) {
	const database = await createTestDatabase(inject('postgresUrl'), 'history');
	const opened = Array.from({ length: pools }, () => new pg.Pool({ connectionString: database.url, max: 4, pipeline: true }));
	await migratePostgres(opened[0]!);
	const pool = opened[0]!;
	return {
		pools: opened,
		history: postgresCheckpointHistory(pool),
		saver: new DeltaPostgresSaver(pool, options),
		uncached: new DeltaPostgresSaver(pool, { cacheItems: 0 }),
		stored: storedCheckpoints(pool),
		async close() {
			await Promise.all(opened.map((each) => each.end()));
			await database.drop();
		}
	};
}

describeCheckpointHistory('PostgreSQL', () => openDatabase());

const thread = (id: string): RunnableConfig => ({ configurable: { thread_id: id } });
const idOf = (config: RunnableConfig) => String(config.configurable!.checkpoint_id);

/**
 * Until `count` backends of this database wait for a lock in a statement matching `query`: the
 * order the test needs is then visible in the server, not assumed from timing.
 */
async function waitersReach(pool: pg.Pool, query: string, count: number): Promise<void> {
	const deadline = Date.now() + 30_000;
	for (;;) {
		const { rows } = await pool.query<{ n: number }>(
			`SELECT count(*)::int AS n FROM pg_stat_activity
			 WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
			[query]
		);
		if (rows[0]!.n >= count) return;
		if (Date.now() > deadline) throw new Error(`no ${count} backends waiting in "${query}" within 30 s`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

describe('checkpoint history on PostgreSQL shared by instances', () => {
	it('a put from another instance during a prune waits for it and goes on from what it kept', async () => {
		const db = await openDatabase(2);
		const blocker = await db.pools[0]!.connect();
		try {
			const graph = buildAgentGraph(db.saver);
			for (let turn = 0; turn < 4; turn += 1) await graph.invoke(humanTurn(turn), thread('busy'));
			const lineage = await db.history.lineage('busy');
			// Holds the prune at its delete of the oldest checkpoint, once it holds the thread's lock.
			await blocker.query('BEGIN');
			await blocker.query(`SELECT 1 FROM lg_checkpoints WHERE checkpoint_id = $1 FOR SHARE`, [lineage[0]!.id]);
			const prune = db.history.prune('busy', 2, []);
			await waitersReach(db.pools[0]!, 'WITH gone AS%', 1);
			const other = buildAgentGraph(new DeltaPostgresSaver(db.pools[1]!));
			const turn = other.invoke(humanTurn(4), thread('busy'));
			await waitersReach(db.pools[0]!, '%FOR NO KEY UPDATE%', 1);
			await blocker.query('COMMIT');

			expect((await prune).deletedCheckpoints).toBe(lineage.length - 2);
			await turn;
			const after = await db.history.lineage('busy');
			expect(after.slice(0, 2).map((entry) => entry.id)).toEqual(lineage.slice(-2).map((entry) => entry.id));
			expect(after[2]!.parent).toBe(lineage[lineage.length - 1]!.id);
			const reader = buildAgentGraph(db.uncached);
			const state = await reader.getState(thread('busy'));
			expect(state.values.messages).toHaveLength(20);
			expect(normalise(state)).toEqual(normalise(await other.getState(thread('busy'))));
		} finally {
			blocker.release(true);
			await db.close();
		}
	});

	it('a prune during a put waits for its commit and keeps its checkpoint', async () => {
		const entered = deferred<void>();
		const gate = deferred<void>();
		let held = false;
		const db = await openDatabase(1, {
			// The put holds the thread's lock here, its checkpoint planned and not yet written or committed.
			onPut: async () => {
				if (!held) return undefined;
				entered.resolve();
				await gate.promise;
				return undefined;
			}
		});
		try {
			// The turns through another saver: this one has no put of the thread to plan ahead from, so
			// its put takes the lock first and plans under it (a put planned ahead is one statement).
			const graph = buildAgentGraph(db.uncached);
			for (let turn = 0; turn < 2; turn += 1) await graph.invoke(humanTurn(turn), thread('putting'));
			const latest = (await db.saver.getTuple(thread('putting')))!;
			const messages = latest.checkpoint.channel_values.messages as BaseMessage[];
			const next: Checkpoint = {
				...latest.checkpoint,
				id: uuid6(-1),
				channel_values: { ...latest.checkpoint.channel_values, messages: [...messages, new HumanMessage({ id: 'late', content: 'Late?' })] },
				channel_versions: { ...latest.checkpoint.channel_versions, messages: 100 }
			};
			const before = (await db.history.lineage('putting')).length;
			held = true;
			const put = db.saver.put(latest.config, next, { source: 'update', step: 99, parents: {} }, { messages: 100 });
			await entered.promise;
			const prune = db.history.prune('putting', 2, []);
			await waitersReach(db.pools[0]!, '%ORDER BY thread_key FOR NO KEY UPDATE%', 1);
			gate.resolve();
			await put;

			expect((await prune).deletedCheckpoints).toBe(before + 1 - 2);
			expect(await db.history.latestId('putting')).toBe(next.id);
			expect((await db.history.lineage('putting')).map((entry) => entry.id)).toEqual([idOf(latest.config), next.id]);
			const stored = await db.uncached.getTuple({ configurable: { thread_id: 'putting', checkpoint_id: next.id } });
			expect((stored!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.id)).toEqual([...messages.map((m) => m.id), 'late']);
		} finally {
			gate.resolve();
			await db.close();
		}
	});

	it("deleting a conversation removes its checkpoints of every namespace, with their writes and logs, and no other's", async () => {
		const db = await openDatabase();
		try {
			const storage = postgresAppStorage(db.pools[0]!, { maxConcurrentRuns: 10, maxQueuedMessages: 10 }, { instanceId: 'one', leaseMs: 60_000 });
			const graph = buildNestedGraph(db.saver);
			const rows = async (threadId?: string) =>
				(
					await db.pools[0]!.query(
						`SELECT (SELECT count(*)::int FROM lg_threads WHERE thread_id = $1 OR $1 IS NULL) AS threads,
						   (SELECT count(*)::int FROM lg_checkpoints c JOIN lg_threads t USING (thread_key) WHERE t.thread_id = $1 OR $1 IS NULL) AS checkpoints,
						   (SELECT count(*)::int FROM lg_writes w JOIN lg_threads t USING (thread_key) WHERE t.thread_id = $1 OR $1 IS NULL) AS writes,
						   (SELECT count(*)::int FROM lg_logs l JOIN lg_threads t USING (thread_key) WHERE t.thread_id = $1 OR $1 IS NULL) AS logs,
						   (SELECT count(*)::int FROM lg_log_items i JOIN lg_logs l USING (log_id) JOIN lg_threads t USING (thread_key)
						    WHERE t.thread_id = $1 OR $1 IS NULL) AS items`,
						[threadId ?? null]
					)
				).rows[0];
			for (const id of ['gone', 'kept']) {
				await storage.conversations.createWithRun(id, `run-${id}`, 'Hello', new Date().toISOString());
				await graph.invoke(humanTurn(0), thread(id));
				await storage.runs.finish(`run-${id}`, { status: 'completed', messageCount: 4 }, new Date().toISOString());
			}
			const kept = await rows('kept');
			expect((await rows('gone')).threads).toBeGreaterThan(1);
			expect((await rows('gone')).items).toBeGreaterThan(0);

			await storage.conversations.delete('gone');
			expect(await rows('gone')).toEqual({ threads: 0, checkpoints: 0, writes: 0, logs: 0, items: 0 });
			expect(await rows()).toEqual(kept);
			expect(await db.history.lineage('gone')).toEqual([]);
			expect((await graph.getState(thread('kept'))).values.messages).toHaveLength(4);
		} finally {
			await db.close();
		}
	});
});
