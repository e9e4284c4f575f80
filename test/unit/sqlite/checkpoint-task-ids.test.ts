// Task ids of pending writes stored as their 16 bytes (checkpoint/task-path.ts packTaskId, and the
// migration that packs the ids stored before, sqlite/checkpoint/migrations/binary-task-ids.ts): they
// read back as written, any other id stays as it is, and a write retried after the upgrade still
// replaces (a special write) or keeps (a regular one) the write stored before it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import { ERROR, emptyCheckpoint, uuid5, uuid6 } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint/index';
import { packTaskId, unpackTaskId } from '../../../src/lib/server/checkpoint/task-path.js';
import { migrate } from '../../../src/lib/server/sqlite/migrate.js';
import { MIGRATIONS } from '../../../src/lib/server/sqlite/migrations.js';

let dir = '';
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'sophos-task-ids-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (checkpoint_id?: string): RunnableConfig => ({
	configurable: { thread_id: 't', checkpoint_ns: '', ...(checkpoint_id ? { checkpoint_id } : {}) }
});
const task = uuid5('agent', '6ba7b810-9dad-11d1-80b4-00c04fd430c8');

describe('task ids of pending writes', () => {
	it('packs a canonical UUID into 16 bytes and leaves any other id as it is', () => {
		expect(packTaskId(task)).toEqual(Buffer.from(task.replaceAll('-', ''), 'hex'));
		expect(unpackTaskId(packTaskId(task))).toBe(task);
		for (const other of ['', 'pull', task.toUpperCase(), `${task}0`, task.replaceAll('-', ''), `{${task}}`]) {
			expect(packTaskId(other)).toBe(other);
			expect(unpackTaskId(packTaskId(other))).toBe(other);
		}
	});

	it('reads back what was written, and packs the ids stored before so a retried write finds its own', async () => {
		const db = new Database(join(dir, 'upgrade.sqlite'));
		const packing = MIGRATIONS.findIndex((m) => m.name.includes('name their task by its 16 bytes'));
		expect(packing).toBeGreaterThan(0);
		// The store as the migration before left it: task ids stored as text.
		for (const migration of MIGRATIONS.slice(0, packing)) {
			if (typeof migration.up === 'string') db.exec(migration.up);
			else migration.up(db);
		}
		db.pragma(`user_version = ${packing}`);
		const saver = new DeltaSqliteSaver(db);
		const id = uuid6(0);
		await saver.put(at(), { ...emptyCheckpoint(), id }, { source: 'input', step: -1, parents: {} }, {});
		const before = `SELECT task_id, idx, value FROM lg_writes ORDER BY idx`;
		const stored = [
			[task, -1, '"first error"'],
			[task, 0, '"kept"'],
			['not-a-uuid', 0, '"other"']
		];
		const insert = db.prepare(`INSERT INTO lg_writes (checkpoint, task_id, idx, channel, type, value) VALUES (1, ?, ?, ?, 'json', ?)`);
		for (const [taskId, idx, value] of stored) insert.run(taskId, idx, idx === -1 ? ERROR : 'note', Buffer.from(value as string));
		expect((db.prepare(before).all() as { task_id: unknown }[]).map((row) => typeof row.task_id)).toEqual(['string', 'string', 'string']);

		migrate(db);
		const types = db.prepare(`SELECT typeof(task_id) AS t, task_id FROM lg_writes ORDER BY idx, task_id`).all() as { t: string; task_id: unknown }[];
		expect(types.map((row) => row.t).sort()).toEqual(['blob', 'blob', 'text']);
		// Retried after the upgrade: the error replaces the one stored before, the regular write is kept.
		await saver.putWrites(at(id), [[ERROR, 'second error']], task);
		await saver.putWrites(at(id), [['note', 'retried']], task);
		const writes = (await saver.getTuple(at(id)))?.pendingWrites;
		expect(writes).toEqual(
			expect.arrayContaining([
				[task, ERROR, 'second error'],
				[task, 'note', 'kept'],
				['not-a-uuid', 'note', 'other']
			])
		);
		expect(writes).toHaveLength(3);
		db.close();
	});
});
