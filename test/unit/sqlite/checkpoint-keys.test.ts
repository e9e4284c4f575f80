// The integer keys of the lg_* tables (checkpoint/migrations/integer-keys.ts): ids known only as a
// parent or by their pending writes read back as the stock saver returns them, re-putting a
// checkpoint keeps its writes, deleting or pruning a thread leaves no keys behind, and migration 5
// converts a store of the text-keyed layout without losing any of that.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeltaSqliteSaver, pruneThreadCheckpoints } from '../../../src/lib/server/sqlite/checkpoint/index';
import { ENCODING, encode } from '../../../src/lib/server/checkpoint/blob.js';
import { migrate } from '../../../src/lib/server/sqlite/migrate.js';
import { MIGRATIONS } from '../../../src/lib/server/sqlite/migrations.js';
import { collect, normalise, openStore } from './checkpoint-compare.js';
import { unpackUuid } from '../../../src/lib/server/checkpoint/packed-uuid';

let dir = '';
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'sophos-keys-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (thread_id: string, checkpoint_id?: string, checkpoint_ns = ''): RunnableConfig => ({
	configurable: { thread_id, checkpoint_ns, ...(checkpoint_id ? { checkpoint_id } : {}) }
});
const checkpoint = (id: string, step: number): Checkpoint => ({
	...emptyCheckpoint(),
	id,
	channel_values: { step },
	channel_versions: { step: step + 1 }
});
const rows = (db: Database.Database) =>
	Object.fromEntries(
		['lg_threads', 'lg_checkpoints', 'lg_writes', 'lg_logs', 'lg_log_items'].map((t) => [
			t,
			db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get()
		])
	);

/** Parents never stored, writes before (and after) their checkpoint, a checkpoint put twice. */
async function oddIds(saver: BaseCheckpointSaver, ids: string[]) {
	await saver.putWrites(at('odd', ids[1]), [['early', 'before its checkpoint']], 'task-early');
	await saver.put(at('odd', 'never-stored'), checkpoint(ids[0]!, 0), { source: 'input', step: 0, parents: {} }, { step: 1 });
	await saver.put(at('odd', ids[0]), checkpoint(ids[1]!, 1), { source: 'loop', step: 1, parents: {} }, { step: 2 });
	await saver.putWrites(at('odd', ids[1]), [['late', 'after it']], 'task-late');
	await saver.put(at('odd', ids[0]), checkpoint(ids[1]!, 1), { source: 'update', step: 1, parents: {} }, { step: 2 });
	await saver.putWrites(at('odd', 'no-checkpoint'), [['orphan', 1]], 'task-orphan');
	await saver.put(at('odd', undefined, 'child:1'), checkpoint(ids[2]!, 0), { source: 'loop', step: 0, parents: {} }, { step: 1 });
}

describe('integer keys', () => {
	it('reads ids known only as a parent or by their writes, and re-puts, as the stock saver does', async () => {
		const ids = [uuid6(0), uuid6(1), uuid6(2)];
		const stock = openStore(dir, 'stock', 'odd-stock');
		const delta = openStore(dir, 'delta', 'odd-delta');
		for (const { saver } of [stock, delta]) await oddIds(saver, ids);
		const everything = async (saver: BaseCheckpointSaver) => ({
			listed: normalise(await collect(saver.list({}))),
			orphan: await saver.getTuple(at('odd', 'no-checkpoint')),
			ghost: await saver.getTuple(at('odd', 'never-stored'))
		});
		expect(await everything(delta.saver)).toEqual(await everything(stock.saver));
		const latest = await delta.saver.getTuple(at('odd'));
		expect(latest?.parentConfig?.configurable?.checkpoint_id).toBe(ids[0]);
		expect(latest?.pendingWrites?.map(([, channel]) => channel).sort()).toEqual(['early', 'late']);
		expect((await delta.saver.getTuple(at('odd', ids[0])))?.parentConfig?.configurable?.checkpoint_id).toBe('never-stored');
		stock.db.close();
		delta.db.close();
	});

	it('leaves no key behind when a thread is deleted, in any namespace', async () => {
		const { db, saver } = openStore(dir, 'delta', 'delete');
		await oddIds(saver, [uuid6(0), uuid6(1), uuid6(2)]);
		await saver.deleteThread('odd');
		expect(rows(db)).toEqual({ lg_threads: 0, lg_checkpoints: 0, lg_writes: 0, lg_logs: 0, lg_log_items: 0 });
		db.close();
	});

	it('prunes ids known only as a parent with the checkpoints older than those it keeps, unless one is still a parent', async () => {
		const { db, saver } = openStore(dir, 'delta', 'prune');
		const ids = [uuid6(0), uuid6(1), uuid6(2)];
		// Ids order as text: this one is older than every uuid6.
		let config = at('chain', '0-never-stored');
		for (const [step, id] of ids.entries()) {
			config = await saver.put(config, checkpoint(id, step), { source: 'loop', step, parents: {} }, { step: step + 1 });
		}
		const known = () => (db.prepare(`SELECT checkpoint_id FROM lg_checkpoints ORDER BY checkpoint_id`).pluck().all() as (string | Buffer)[]).map(unpackUuid);
		pruneThreadCheckpoints(db, 'chain', 3);
		expect(known()).toEqual(['0-never-stored', ...ids]);
		pruneThreadCheckpoints(db, 'chain', 2);
		expect(known()).toEqual(ids.slice(1));
		expect((await saver.getTuple(at('chain', ids[1])))?.parentConfig).toBeUndefined();
		db.close();
	});
});

describe('migration 5 (integer keys)', () => {
	it('converts a store of the text-keyed layout: parents, writes of unknown ids and the log sequence carry over', async () => {
		const file = join(dir, 'text-keys.sqlite');
		const db = new Database(file);
		const integerKeys = MIGRATIONS.findIndex((m) => m.name.includes('integer keys'));
		// The store as migration 4 left it, holding rows as the saver of that layout wrote them.
		for (const migration of MIGRATIONS.slice(0, integerKeys)) {
			if (typeof migration.up === 'string') db.exec(migration.up);
			else migration.up(db);
		}
		db.pragma(`user_version = ${integerKeys}`);
		const ids = [uuid6(0), uuid6(1)];
		const insertCheckpoint = db.prepare(
			`INSERT INTO lg_checkpoints
			 (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata, channels, encoding)
			 VALUES ('t', '', ?, ?, 'json', ?, ?, ?, ?)`
		);
		const dictionary = (text: string) => encode(Buffer.from(text), ENCODING.DICTIONARY_V1);
		const skeleton = (id: string) => {
			const { id: _id, channel_values: _values, ...rest } = checkpoint(id, 0);
			return Buffer.from(JSON.stringify(rest));
		};
		const plain = [skeleton(ids[0]!), Buffer.from('{"step":0}'), Buffer.from('{"step":{"v":["json","0"]}}')];
		insertCheckpoint.run(ids[0], 'never-stored', ...plain, ENCODING.RAW);
		// Skeleton and channels encoded, metadata plain: the layout before migration 5.
		const encoded = [dictionary(skeleton(ids[1]!).toString()), Buffer.from('{"step":1}'), dictionary('{"step":{"v":["json","1"]}}')];
		insertCheckpoint.run(ids[1], ids[0], ...encoded, ENCODING.DICTIONARY_V1);
		const insertWrite = db.prepare(
			`INSERT INTO lg_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
			 VALUES ('t', '', ?, ?, 0, 'note', 'json', ?, ?)`
		);
		insertWrite.run(ids[1], 'push', Buffer.from('"pushed"'), '~__pregel_push, 0');
		insertWrite.run(ids[1], 'pull', Buffer.from('"kept"'), '~__pregel_pull, agent');
		insertWrite.run('no-checkpoint', 'task', Buffer.from('"orphan"'), '');
		db.exec(`INSERT INTO lg_logs (thread_id, checkpoint_ns, length) VALUES ('t', '', 0), ('t', '', 0);
		         DELETE FROM lg_logs WHERE log_id = 2`);

		migrate(db);
		const saver = new DeltaSqliteSaver(db, { cacheItems: 0 });
		const latest = await saver.getTuple(at('t'));
		expect(latest?.checkpoint.id).toBe(ids[1]);
		expect(latest?.parentConfig?.configurable?.checkpoint_id).toBe(ids[0]);
		expect(latest?.metadata).toEqual({ step: 1 });
		expect(await collect(saver.list(at('t'), { filter: { step: 1 } }))).toHaveLength(1);
		// A node's task path is stored as the node; the writes still come back in task path order.
		expect(latest?.pendingWrites).toEqual([
			['pull', 'note', 'kept'],
			['push', 'note', 'pushed']
		]);
		const paths = db.prepare(`SELECT typeof(task_path) FROM lg_writes ORDER BY task_id`).pluck().all();
		expect(paths).toEqual(['blob', 'text', 'text']);
		expect((await saver.getTuple(at('t', ids[0])))?.parentConfig?.configurable?.checkpoint_id).toBe('never-stored');
		expect((await saver.getTuple(at('t', 'no-checkpoint')))).toBeUndefined();
		const orphan = db.prepare(
			`SELECT w.value FROM lg_writes w JOIN lg_checkpoints c ON c.id = w.checkpoint WHERE c.checkpoint_id = 'no-checkpoint'`
		);
		expect(String(orphan.pluck().get())).toBe('"orphan"');
		// Log 2 was deleted before the migration: its id is not handed out again.
		expect(db.prepare(`INSERT INTO lg_logs (thread, length) VALUES (1, 0)`).run().lastInsertRowid).toBe(3);
		db.close();
	});
});
