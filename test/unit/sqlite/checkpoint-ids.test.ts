// Checkpoint ids stored as their 16 bytes (checkpoint/packed-uuid.ts, and the migration that packs
// the ids stored before, sqlite/checkpoint/migrations/binary-checkpoint-ids.ts): a thread's
// checkpoints read back and list in id order, before and after the upgrade, and an id that is not a
// canonical UUID stays text.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, uuid6, type CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint/index';
import { unpackUuid } from '../../../src/lib/server/checkpoint/packed-uuid';
import { migrate } from '../../../src/lib/server/sqlite/migrate.js';
import { MIGRATIONS } from '../../../src/lib/server/sqlite/migrations.js';

let dir = '';
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'sophos-checkpoint-ids-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (thread: string, checkpoint_id?: string): RunnableConfig => ({
	configurable: { thread_id: thread, checkpoint_ns: '', ...(checkpoint_id ? { checkpoint_id } : {}) }
});

/** Puts a chain of checkpoints with these ids, oldest first. */
async function chain(saver: DeltaSqliteSaver, thread: string, ids: string[]): Promise<void> {
	let config = at(thread);
	for (const [step, id] of ids.entries()) {
		config = await saver.put(config, { ...emptyCheckpoint(), id }, { source: 'loop', step, parents: {} }, {});
	}
}

async function listed(saver: DeltaSqliteSaver, thread: string, before?: string): Promise<CheckpointTuple[]> {
	const out: CheckpointTuple[] = [];
	for await (const tuple of saver.list(at(thread), before ? { before: at(thread, before) } : undefined)) out.push(tuple);
	return out;
}

const idOf = (tuple: CheckpointTuple | undefined) => tuple?.config.configurable?.checkpoint_id;
const storedTypes = (db: Database.Database) => db.prepare(`SELECT typeof(checkpoint_id) FROM lg_checkpoints ORDER BY id`).pluck().all();

describe('checkpoint ids', () => {
	it('stores a uuid6 as 16 bytes and keeps the thread in id order; another id stays text', async () => {
		const db = new Database(join(dir, 'fresh.sqlite'));
		migrate(db);
		const saver = new DeltaSqliteSaver(db);
		// Put out of order: the order read back is the ids', not the puts'.
		const ids = [uuid6(0), uuid6(1), uuid6(2)];
		await chain(saver, 't', [ids[0]!, ids[2]!]);
		await saver.put(at('t', ids[0]), { ...emptyCheckpoint(), id: ids[1]! }, { source: 'fork', step: 1, parents: {} }, {});
		expect(storedTypes(db)).toEqual(['blob', 'blob', 'blob']);
		expect((await listed(saver, 't')).map(idOf)).toEqual([ids[2], ids[1], ids[0]]);
		expect((await listed(saver, 't', ids[2])).map(idOf)).toEqual([ids[1], ids[0]]);
		expect(idOf(await saver.getTuple(at('t')))).toBe(ids[2]);
		expect((await saver.getTuple(at('t', ids[1])))?.parentConfig?.configurable?.checkpoint_id).toBe(ids[0]);

		await chain(saver, 'named', ['step-a', 'step-b']);
		expect(storedTypes(db).slice(3)).toEqual(['text', 'text']);
		expect((await listed(saver, 'named')).map(idOf)).toEqual(['step-b', 'step-a']);
		db.close();
	});

	it('packs the ids stored before the upgrade: the thread reads, lists and goes on as before', async () => {
		const db = new Database(join(dir, 'upgrade.sqlite'));
		const packing = MIGRATIONS.findIndex((m) => m.name.includes('checkpoint ids as their 16 bytes'));
		expect(packing).toBeGreaterThan(0);
		for (const migration of MIGRATIONS.slice(0, packing)) {
			if (typeof migration.up === 'string') db.exec(migration.up);
			else migration.up(db);
		}
		db.pragma(`user_version = ${packing}`);
		const ids = [uuid6(0), uuid6(1), uuid6(2)];
		await chain(new DeltaSqliteSaver(db), 't', ids);
		await new DeltaSqliteSaver(db).putWrites(at('t', ids[2]), [['note', 'pending']], uuid6(3));
		// The store as the migration before left it: checkpoint ids stored as text.
		const rows = db.prepare(`SELECT id, checkpoint_id FROM lg_checkpoints`).all() as { id: number; checkpoint_id: Buffer }[];
		const toText = db.prepare(`UPDATE lg_checkpoints SET checkpoint_id = ? WHERE id = ?`);
		for (const row of rows) toText.run(unpackUuid(row.checkpoint_id), row.id);
		expect(storedTypes(db)).toEqual(['text', 'text', 'text']);

		migrate(db);
		expect(storedTypes(db)).toEqual(['blob', 'blob', 'blob']);
		const saver = new DeltaSqliteSaver(db);
		const latest = await saver.getTuple(at('t'));
		expect(idOf(latest)).toBe(ids[2]);
		expect(latest?.parentConfig?.configurable?.checkpoint_id).toBe(ids[1]);
		expect(latest?.pendingWrites).toEqual([[expect.any(String), 'note', 'pending']]);
		const next = uuid6(4);
		await saver.put(at('t', ids[2]), { ...emptyCheckpoint(), id: next }, { source: 'loop', step: 3, parents: {} }, {});
		expect((await listed(saver, 't')).map(idOf)).toEqual([next, ...ids.reverse()]);
		db.close();
	});
});
