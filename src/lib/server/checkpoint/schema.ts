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
  metadata BLOB NOT NULL,
  channels TEXT NOT NULL,    -- JSON ChannelMap: where each channel value lives
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
  deflated INTEGER NOT NULL DEFAULT 0,  -- see blob.ts
  PRIMARY KEY (log_id, seq)
);

CREATE TABLE IF NOT EXISTS lg_writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  type TEXT NOT NULL,
  value BLOB NOT NULL,
  deflated INTEGER NOT NULL DEFAULT 0,  -- see blob.ts
  task_path TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
`;

export interface CheckpointStoreMigration {
	/** Checkpoints imported from the stock saver's tables (0 when there was nothing to import). */
	importedCheckpoints: number;
	importedWrites: number;
	/** Whether the stock `checkpoints` and `writes` tables were dropped after the import. */
	droppedStockTables: boolean;
}

/**
 * Create the store's tables (idempotent; call at every start) and import, in one transaction,
 * any rows left in the stock SqliteSaver's `checkpoints` / `writes` tables. The stock tables are
 * dropped in that same transaction once imported, so a later start does not import them again;
 * when they are absent or empty they are left untouched.
 */
export function migrateCheckpointStore(db: Database.Database): CheckpointStoreMigration {
	db.exec(DDL);
	const result: StockImportResult = db.transaction(() => importStockTables(db))();
	return {
		importedCheckpoints: result.checkpoints,
		importedWrites: result.writes,
		droppedStockTables: result.dropped
	};
}
