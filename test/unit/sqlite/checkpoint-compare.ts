// Test helpers: run the same scenario against the stock SqliteSaver and DeltaSqliteSaver, and
// compare what LangGraph reads back, with checkpoint/task ids and timestamps normalised.

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { DeltaSqliteSaver, type DeltaSqliteSaverOptions } from '../../../src/lib/server/sqlite/checkpoint/index';
import { migrate } from '../../../src/lib/server/sqlite/migrate.js';

export type SaverKind = 'stock' | 'delta';

export interface OpenStore {
	db: Database.Database;
	file: string;
	saver: BaseCheckpointSaver;
}

export function openStore(dir: string, kind: SaverKind, name: string = kind, options?: DeltaSqliteSaverOptions): OpenStore {
	const file = join(dir, `${name}.sqlite`);
	const db = new Database(file);
	db.pragma('journal_mode = WAL');
	if (kind === 'stock') return { db, file, saver: new SqliteSaver(db) };
	migrate(db);
	return { db, file, saver: new DeltaSqliteSaver(db, options) };
}

/** Database bytes on disk once the WAL is folded back into the main file. */
export function storeBytes({ db, file }: Pick<OpenStore, 'db' | 'file'>): number {
	db.pragma('wal_checkpoint(TRUNCATE)');
	const wal = `${file}-wal`;
	return statSync(file).size + (existsSync(wal) ? statSync(wal).size : 0);
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * JSON form of anything read back, with every uuid (checkpoint and task ids, also inside
 * namespaces) replaced by its order of first appearance and timestamps dropped: two runs of the
 * same scenario then compare equal position by position, parent links included.
 */
export function normalise(value: unknown): unknown {
	const ids = new Map<string, string>();
	const text = JSON.stringify(value, (key, v: unknown) =>
		key === 'createdAt' || key === 'ts'
			? undefined
			: typeof v === 'string'
				? v.replace(UUID, (id) => ids.get(id) ?? (ids.set(id, `#${ids.size}`), `#${ids.size - 1}`))
				: v
	);
	return text === undefined ? undefined : JSON.parse(text);
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
	const out: T[] = [];
	for await (const item of items) out.push(item);
	return out;
}
