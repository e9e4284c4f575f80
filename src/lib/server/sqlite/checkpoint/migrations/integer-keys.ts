// Migration 5 of sqlite/migrations.ts: integer keys for threads and checkpoints inside the lg_* tables.
//
// Why: LangGraph names every thread and checkpoint with a 36-character UUID, and the layout of
// migration 4 repeated them in every row: thread, namespace and checkpoint id in each checkpoint
// (and its parent's id), the same three in each pending write and the thread in each log. Here each
// UUID is stored once, with an integer key that the other rows use. The rows get smaller in two
// more ways: metadata is encoded like the skeleton, and a node's task path is stored as its node.
//
// Frozen: this is history. The tables below are the store's layout until a later migration
// changes it; store.ts is the code that reads and writes them.

import type Database from 'better-sqlite3';
import { encode, type Encoding } from '../../../checkpoint/blob.js';

// Comments stay outside the statements: SQLite keeps each CREATE statement's text in sqlite_schema,
// which every database file holds and reads at every open.
const TABLES = `
-- A thread's namespace (checkpoint_ns '' for the thread itself, one per subgraph).
CREATE TABLE lg_threads (
  id INTEGER PRIMARY KEY,
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL,
  UNIQUE (thread_id, checkpoint_ns)
);

-- Every checkpoint id a thread (lg_threads.id) knows. A stored checkpoint has a type; an id known
-- only as some checkpoint's parent or as the checkpoint pending writes belong to has none (its
-- data columns are NULL), so parents and writes always refer to an id by its key. parent:
-- lg_checkpoints.id of the parent's id. type: serde type of checkpoint and metadata. checkpoint:
-- the checkpoint without id and channel_values. channels: the ChannelMap, where each channel value
-- lives. metadata: as serialised. encoding: of all three (blob.ts).
CREATE TABLE lg_checkpoints (
  id INTEGER PRIMARY KEY,
  thread INTEGER NOT NULL,
  checkpoint_id TEXT NOT NULL,
  parent INTEGER,
  type TEXT,
  checkpoint BLOB,
  metadata BLOB,
  channels BLOB,
  encoding INTEGER NOT NULL DEFAULT 0,
  UNIQUE (thread, checkpoint_id)
);

-- checkpoint: lg_checkpoints.id. encoding: blob.ts, or a link to log items (write-links.ts).
-- task_path: TEXT, or a node's path as a BLOB (task-path.ts).
-- WITHOUT ROWID: the key is most of a row, and a rowid table would store it twice (table and index).
CREATE TABLE lg_writes (
  checkpoint INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  type TEXT NOT NULL,
  value BLOB NOT NULL,
  encoding INTEGER NOT NULL DEFAULT 0,
  task_path BLOB NOT NULL DEFAULT '',
  PRIMARY KEY (checkpoint, task_id, idx)
) WITHOUT ROWID;

-- The item logs of a thread (lg_threads.id); their items are in lg_log_items. AUTOINCREMENT: a log
-- id is never reused, and a log's length never decreases, so an item (log_id, seq) is written once
-- for the life of the database and may be cached by any reader.
CREATE TABLE lg_logs (
  log_id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread INTEGER NOT NULL,
  length INTEGER NOT NULL
);
CREATE INDEX lg_logs_by_thread ON lg_logs (thread);
`;

/**
 * Moves every row to the new tables; lg_log_items, keyed by log, stays as it is. The old rows wait
 * in temp tables meanwhile, so the file's schema never holds both layouts (a schema that outgrows
 * a page keeps the pages it split into).
 */
export function useIntegerKeys(db: Database.Database): void {
	db.exec(`
		CREATE TEMP TABLE old_checkpoints AS SELECT * FROM lg_checkpoints;
		CREATE TEMP TABLE old_writes AS SELECT * FROM lg_writes;
		CREATE TEMP TABLE old_logs AS SELECT * FROM lg_logs;
		-- Log ids of deleted logs stay used: the sequence carries over, not just the highest id left.
		CREATE TEMP TABLE old_log_sequence AS SELECT seq FROM sqlite_sequence WHERE name = 'lg_logs';
		DROP TABLE lg_checkpoints;
		DROP TABLE lg_writes;
		DROP TABLE lg_logs;
		${TABLES}

		INSERT INTO lg_threads (thread_id, checkpoint_ns)
		SELECT thread_id, checkpoint_ns FROM old_checkpoints
		UNION SELECT thread_id, checkpoint_ns FROM old_writes
		UNION SELECT thread_id, checkpoint_ns FROM old_logs
		ORDER BY 1, 2;

		-- Stored checkpoints first, in id order; then the ids known only as a parent or by their writes.
		INSERT INTO lg_checkpoints (thread, checkpoint_id, type, checkpoint, metadata, channels, encoding)
		SELECT t.id, c.checkpoint_id, c.type, c.checkpoint, c.metadata, c.channels, c.encoding
		FROM old_checkpoints c
		JOIN lg_threads t ON t.thread_id = c.thread_id AND t.checkpoint_ns = c.checkpoint_ns
		ORDER BY t.id, c.checkpoint_id;
		INSERT OR IGNORE INTO lg_checkpoints (thread, checkpoint_id)
		SELECT t.id, c.parent_checkpoint_id FROM old_checkpoints c
		JOIN lg_threads t ON t.thread_id = c.thread_id AND t.checkpoint_ns = c.checkpoint_ns
		WHERE c.parent_checkpoint_id IS NOT NULL
		UNION SELECT t.id, w.checkpoint_id FROM old_writes w
		JOIN lg_threads t ON t.thread_id = w.thread_id AND t.checkpoint_ns = w.checkpoint_ns
		ORDER BY 1, 2;
		UPDATE lg_checkpoints SET parent = p.id
		FROM old_checkpoints c
		JOIN lg_threads t ON t.thread_id = c.thread_id AND t.checkpoint_ns = c.checkpoint_ns
		JOIN lg_checkpoints p ON p.thread = t.id AND p.checkpoint_id = c.parent_checkpoint_id
		WHERE lg_checkpoints.thread = t.id AND lg_checkpoints.checkpoint_id = c.checkpoint_id;

		-- A node's task path, '~__pregel_pull, <node>', as task-path.ts stores it: the node, as a BLOB.
		INSERT INTO lg_writes (checkpoint, task_id, idx, channel, type, value, encoding, task_path)
		SELECT c.id, w.task_id, w.idx, w.channel, w.type, w.value, w.encoding,
		  CASE WHEN substr(w.task_path, 1, 16) = '~__pregel_pull, ' THEN CAST(substr(w.task_path, 17) AS BLOB) ELSE w.task_path END
		FROM old_writes w
		JOIN lg_threads t ON t.thread_id = w.thread_id AND t.checkpoint_ns = w.checkpoint_ns
		JOIN lg_checkpoints c ON c.thread = t.id AND c.checkpoint_id = w.checkpoint_id;

		INSERT INTO lg_logs (log_id, thread, length)
		SELECT l.log_id, t.id, l.length FROM old_logs l
		JOIN lg_threads t ON t.thread_id = l.thread_id AND t.checkpoint_ns = l.checkpoint_ns;
		DELETE FROM sqlite_sequence WHERE name = 'lg_logs';
		INSERT INTO sqlite_sequence (name, seq) SELECT 'lg_logs', seq FROM old_log_sequence;

		DROP TABLE temp.old_checkpoints;
		DROP TABLE temp.old_writes;
		DROP TABLE temp.old_logs;
		DROP TABLE temp.old_log_sequence;
	`);
	// Metadata now shares the row's encoding with the skeleton and channel map (it was kept plain).
	const encoded = db.prepare(`SELECT id, metadata, encoding FROM lg_checkpoints WHERE type IS NOT NULL AND encoding <> 0`);
	const update = db.prepare(`UPDATE lg_checkpoints SET metadata = ? WHERE id = ?`);
	for (const row of encoded.all() as { id: number; metadata: Uint8Array | string; encoding: Encoding }[]) {
		update.run(encode(Buffer.from(row.metadata), row.encoding), row.id);
	}
}
