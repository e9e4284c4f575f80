// Tables of the checkpoint store and the start-up migration that creates them.
//
// Our own table names (lg_*) so the stock SqliteSaver's `checkpoints` / `writes` tables can sit
// next to them until they are imported.

import type Database from 'better-sqlite3';
import { importStockTables, type StockImportResult } from './stock-import.js';

const DDL = `
CREATE TABLE IF NOT EXISTS lg_checkpoints (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  type TEXT NOT NULL,        -- serde type of checkpoint and metadata
  checkpoint BLOB NOT NULL,  -- the checkpoint without id and channel_values
  metadata BLOB NOT NULL,    -- as serialised (list() filters on it in SQL)
  channels BLOB NOT NULL,    -- JSON ChannelMap: where each channel value lives
  encoding INTEGER NOT NULL DEFAULT 0,  -- of checkpoint and channels, see blob.ts
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
) WITHOUT ROWID;

-- AUTOINCREMENT: a log id is never reused, and a log's length never decreases, so an item
-- (log_id, seq) is written once for the life of the database and may be cached by any reader.
CREATE TABLE IF NOT EXISTS lg_logs (
  log_id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL,
  length INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS lg_logs_by_thread ON lg_logs (thread_id, checkpoint_ns);

CREATE TABLE IF NOT EXISTS lg_log_items (
  log_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  value BLOB NOT NULL,
  encoding INTEGER NOT NULL DEFAULT 0,  -- see blob.ts
  PRIMARY KEY (log_id, seq)
);

-- WITHOUT ROWID: the key is most of a row, and a rowid table would store it twice (table and index).
CREATE TABLE IF NOT EXISTS lg_writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  type TEXT NOT NULL,
  value BLOB NOT NULL,
  encoding INTEGER NOT NULL DEFAULT 0,  -- see blob.ts and write-links.ts
  task_path TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
) WITHOUT ROWID;
`;

/**
 * Bring lg_* tables written before value encodings (a `deflated` flag, lg_writes with a rowid) to
 * the current layout. Stored bytes are kept as they are: a `deflated` flag of 0 or 1 is the same
 * number as ENCODING.RAW or ENCODING.DEFLATE. Each step checks the column it adds, so a partly
 * migrated database (none can exist: this runs in one transaction) or a current one is left alone.
 */
function upgradeTables(db: Database.Database): void {
	const columns = (table: string) => new Set(db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table));
	if (!columns('lg_checkpoints').has('encoding')) {
		db.exec(`ALTER TABLE lg_checkpoints ADD COLUMN encoding INTEGER NOT NULL DEFAULT 0`);
	}
	if (columns('lg_log_items').has('deflated')) {
		db.exec(`ALTER TABLE lg_log_items RENAME COLUMN deflated TO encoding`);
	}
	if (columns('lg_writes').has('deflated')) {
		db.exec(`
			ALTER TABLE lg_writes RENAME TO lg_writes_before_encoding;
			${DDL.slice(DDL.indexOf('CREATE TABLE IF NOT EXISTS lg_writes'))}
			INSERT INTO lg_writes
			  (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, encoding, task_path)
			SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, deflated, task_path
			FROM lg_writes_before_encoding;
			DROP TABLE lg_writes_before_encoding;
		`);
	}
}

export interface CheckpointStoreMigration {
	/** Checkpoints imported from the stock saver's tables (0 when there was nothing to import). */
	importedCheckpoints: number;
	importedWrites: number;
	/** Whether the stock `checkpoints` and `writes` tables were dropped after the import. */
	droppedStockTables: boolean;
}

/**
 * Create the store's tables (idempotent; call at every start), upgrade lg_* tables of an older
 * layout, and import any rows left in the stock SqliteSaver's `checkpoints` / `writes` tables, all
 * in one transaction. The stock tables are dropped in that same transaction once imported, so a
 * later start does not import them again; when they are absent or empty they are left untouched.
 */
export function migrateCheckpointStore(db: Database.Database): CheckpointStoreMigration {
	const result: StockImportResult = db.transaction(() => {
		db.exec(DDL);
		upgradeTables(db);
		return importStockTables(db);
	})();
	return {
		importedCheckpoints: result.checkpoints,
		importedWrites: result.writes,
		droppedStockTables: result.dropped
	};
}
