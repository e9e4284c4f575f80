// Migration 4 of sqlite/migrations.ts: the checkpoint store's tables as they shipped with value
// encodings (an `encoding` column, lg_writes WITHOUT ROWID), keyed by thread and checkpoint ids.
//
// Frozen: this is history. A database reaches migration 4 with no lg_* tables (Sophos before the
// delta saver), with those of the earlier layout (a `deflated` flag, lg_writes with a rowid: the
// delta saver's first release, which created and upgraded its tables at every start), or with
// these already. Later layouts are later migrations.

import type Database from 'better-sqlite3';

const TABLES = `
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
`;

// WITHOUT ROWID: the key is most of a row, and a rowid table would store it twice (table and index).
const WRITES = `
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
 * Creates the tables, or brings those of the earlier layout to this one. Stored bytes are kept as
 * they are: a `deflated` flag of 0 or 1 is the same number as ENCODING.RAW or ENCODING.DEFLATE.
 */
export function createCheckpointStore(db: Database.Database): void {
	db.exec(TABLES + WRITES);
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
			${WRITES}
			INSERT INTO lg_writes
			  (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, encoding, task_path)
			SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, deflated, task_path
			FROM lg_writes_before_encoding;
			DROP TABLE lg_writes_before_encoding;
		`);
	}
}
