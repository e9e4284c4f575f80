// The checkpoint history contract on the SQLite file (the shared suite; its PostgreSQL run is in
// test/postgres/), and what only SQLite does: a prune hands its freed pages back to the disk.

import path from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint';
import { channelMapOf } from '../../../src/lib/server/checkpoint/row-encoding';
import type { CheckpointRow } from '../../../src/lib/server/sqlite/checkpoint/store';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { packUuid } from '../../../src/lib/server/checkpoint/packed-uuid';
import { describeCheckpointHistory, type StoredCheckpoints } from '../../support/checkpoint-history-suite';
import { tempDir } from '../../support/service';
import { buildAgentGraph, humanTurn } from './checkpoint-agent-graph';
import { sqliteCheckpointHistory } from '../../../src/lib/server/sqlite/checkpoint/history';

function storedCheckpoints(db: Database.Database): StoredCheckpoints {
	const THREAD = `lg_checkpoints c JOIN lg_threads t ON t.id = c.thread WHERE t.thread_id = ?`;
	return {
		async channelMap(threadId, checkpointId) {
			const row = db
				.prepare(`SELECT c.channels, c.encoding FROM ${THREAD} AND t.checkpoint_ns = '' AND c.checkpoint_id = ?`)
				.get(threadId, packUuid(checkpointId)) as Pick<CheckpointRow, 'channels' | 'encoding'>;
			return channelMapOf(row);
		},
		async checkpointsPerNamespace(threadId) {
			return db
				.prepare(`SELECT COUNT(*) AS n FROM ${THREAD} AND c.type IS NOT NULL GROUP BY t.checkpoint_ns ORDER BY t.checkpoint_ns`)
				.pluck()
				.all(threadId) as number[];
		},
		async writeCount(threadId) {
			return db.prepare(`SELECT COUNT(*) FROM lg_writes WHERE checkpoint IN (SELECT c.id FROM ${THREAD})`).pluck().get(threadId) as number;
		},
		async logs() {
			return db
				.prepare(
					`SELECT (SELECT COUNT(*) FROM lg_log_items) AS items, (SELECT COUNT(*) FROM lg_logs) AS logs,
					   (SELECT MAX(length) FROM lg_logs) AS longest`
				)
				.get() as { items: number; logs: number; longest: number };
		}
	};
}

function openHistory() {
	const db = openDatabase(path.join(tempDir(), 'sophos.db'));
	return {
		db,
		history: sqliteCheckpointHistory(db),
		saver: new DeltaSqliteSaver(db),
		uncached: new DeltaSqliteSaver(db, { cacheItems: 0 }),
		stored: storedCheckpoints(db),
		async close() {
			db.close();
		}
	};
}

describeCheckpointHistory('SQLite', async () => openHistory());

describe('checkpoint history on SQLite', () => {
	it('gives the pages a prune freed back to the disk (incremental_vacuum)', async () => {
		const { db, history, saver, close } = openHistory();
		const graph = buildAgentGraph(saver);
		for (let turn = 0; turn < 10; turn += 1) await graph.invoke(humanTurn(turn), { configurable: { thread_id: 'long' } });
		const pages = db.pragma('page_count', { simple: true }) as number;
		const result = await history.prune('long', 1, []);
		expect(result.deletedCheckpoints).toBeGreaterThan(0);
		expect(db.pragma('freelist_count', { simple: true })).toBe(0);
		expect(db.pragma('page_count', { simple: true })).toBeLessThan(pages);
		await close();
	});
});
