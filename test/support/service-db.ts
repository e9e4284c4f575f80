// A look inside a stopped (or running) service's database, whichever engine it runs on, for what
// the API does not show: the journal's rows, what a deletion left, a fault injected on purpose.

import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { databaseOf, TEST_ENGINE } from './service.js';

export interface ServiceDb {
	/** Rows of a query written in SQL both engines read alike; `?` placeholders. */
	all<T>(sql: string, ...params: unknown[]): Promise<T[]>;
	/** The app's and the checkpoints' tables. */
	tables(): Promise<string[]>;
	/** Makes every DELETE on `table` fail, until undone. */
	refuseDeletes(table: string): Promise<{ undo(): Promise<void> }>;
	close(): Promise<void>;
}

const numbered = (sql: string) => {
	let n = 0;
	return sql.replace(/\?/g, () => `$${++n}`);
};

/** `databaseUrl`: the service's DATABASE_URL when a test gave it one; else the engine's own for `dataDir`. */
export async function openServiceDb(dataDir: string, databaseUrl?: string): Promise<ServiceDb> {
	if (TEST_ENGINE === 'sqlite' && databaseUrl === undefined) {
		const db = new Database(path.join(dataDir, 'sophos.db'));
		return {
			all: async <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
			tables: async () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
			async refuseDeletes(table) {
				db.exec(`CREATE TRIGGER refuse_delete BEFORE DELETE ON ${table} BEGIN SELECT RAISE(ABORT, 'refused'); END`);
				return { undo: async () => void db.exec('DROP TRIGGER refuse_delete') };
			},
			close: async () => void db.close()
		};
	}
	const client = new pg.Client({ connectionString: databaseUrl ?? (await databaseOf(dataDir)) });
	await client.connect();
	return {
		all: async <T>(sql: string, ...params: unknown[]) => (await client.query(numbered(sql), params)).rows as T[],
		tables: async () =>
			(await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`)).rows.map(
				(r) => r.name
			),
		async refuseDeletes(table) {
			await client.query(`CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`);
			await client.query(`CREATE TRIGGER refuse_delete BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_delete()`);
			return {
				async undo() {
					await client.query(`DROP TRIGGER refuse_delete ON ${table}`);
					await client.query(`DROP FUNCTION refuse_delete()`);
				}
			};
		},
		close: () => client.end()
	};
}
