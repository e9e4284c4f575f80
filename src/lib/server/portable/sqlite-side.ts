import type Database from 'better-sqlite3';
import { DeltaSqliteSaver } from '../sqlite/checkpoint';
import type { MigrationSide, TableRows } from './migration-side';
import { countSqliteTables } from './table-counts';

/** The SQLite file as one end of a migration, over a connection the caller opened and holds (`holdSqliteFile`). */
export function sqliteSide(db: Database.Database, file: string): MigrationSide {
	const columnsOf = (table: string) => (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
	return {
		where: `SQLite file ${file}`,
		saver: new DeltaSqliteSaver(db),
		async readRows(tables) {
			return tables.map((table) => {
				const columns = columnsOf(table);
				const rows = db.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${table}" ORDER BY rowid`).raw().all() as unknown[][];
				return { table, columns, rows };
			});
		},
		async writeRows(tables: TableRows[]) {
			db.transaction(() => {
				for (const { table, columns, rows } of tables) {
					const insert = db.prepare(
						`INSERT OR IGNORE INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`
					);
					for (const row of rows) insert.run(...row);
				}
			})();
		},
		async threadIds() {
			return (db.prepare(`SELECT DISTINCT thread_id FROM lg_threads ORDER BY thread_id`).all() as { thread_id: string }[]).map((r) => r.thread_id);
		},
		async count(tables) {
			return countSqliteTables(db, tables);
		},
		async close() {
			db.close();
		}
	};
}
