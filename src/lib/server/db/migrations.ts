import type Database from 'better-sqlite3';
import { createCheckpointStore } from '../checkpoint/migrations/create-store';
import { useIntegerKeys } from '../checkpoint/migrations/integer-keys';
import { importStockTables } from '../checkpoint/stock-import';

/**
 * One step of the schema. SQL, or a function of the database where the step must look at what an
 * earlier release left (a column it may lack, a table of an older layout). A function may return
 * a line for the operator's log.
 */
export type Migration = { name: string; up: string | ((db: Database.Database) => string | void) };

/**
 * The schema of the whole database file, checkpoint tables included. Append-only: a migration
 * that has shipped is never edited, only followed by a new one, so every database converges on the
 * same schema. `PRAGMA user_version` holds how many have been applied; each runs once, in its own
 * transaction with the version bump. Databases in the wild start at 0, 1 or 2.
 */
export const MIGRATIONS: readonly Migration[] = [
	{
		name: 'conversations and runs',
		up: `CREATE TABLE conversations (
		id TEXT PRIMARY KEY,
		title TEXT NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		message_count INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE runs (
		id TEXT PRIMARY KEY,
		conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
		status TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'completed', 'failed', 'cancelled')),
		error_code TEXT,
		error_message TEXT,
		started_at TEXT NOT NULL,
		finished_at TEXT
	);
	CREATE INDEX runs_by_conversation ON runs(conversation_id, started_at);
	-- One active run per conversation, enforced where two processes or two requests cannot race it.
	CREATE UNIQUE INDEX one_running_run ON runs(conversation_id) WHERE status = 'running';
	CREATE INDEX conversations_by_update ON conversations(updated_at);`
	},
	{
		name: 'tool call journal, message queue, run triggers',
		up: `-- One row per tool call: its intent, written before the MCP request, then its outcome.
	CREATE TABLE tool_calls (
		thread_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
		tool_call_id TEXT NOT NULL,
		run_id TEXT NOT NULL,
		step INTEGER NOT NULL,
		tool TEXT NOT NULL,
		args_hash TEXT NOT NULL,
		idempotency_key TEXT NOT NULL,
		attempts INTEGER NOT NULL DEFAULT 1,
		intent_at TEXT NOT NULL,
		outcome TEXT CHECK (outcome IN ('success', 'error', 'cancelled')),
		result TEXT,
		outcome_at TEXT,
		PRIMARY KEY (thread_id, tool_call_id)
	);
	-- Messages sent with ifBusy "enqueue" while a run was active, oldest first.
	CREATE TABLE queued_messages (
		id TEXT PRIMARY KEY,
		conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
		message TEXT NOT NULL,
		created_at TEXT NOT NULL
	);
	CREATE INDEX queued_by_conversation ON queued_messages(conversation_id, created_at);
	ALTER TABLE runs ADD COLUMN trigger TEXT NOT NULL DEFAULT 'message'
		CHECK (trigger IN ('message', 'resume', 'auto-resume'));`
	},
	{
		// Migration 2 first shipped as above; a later release appended this column to it in place, so
		// databases created at version 2 before that lack it while the others have it.
		name: 'runs.input where migration 2 did not add it',
		up: (db) => {
			const columns = db.prepare(`SELECT name FROM pragma_table_info('runs')`).pluck().all();
			if (columns.includes('input')) return;
			// The user message of a message run, kept with the run so a crash before it reached the
			// thread loses nothing: it is sent again on resume. In the thread, that message's id is the run's id.
			db.exec(`ALTER TABLE runs ADD COLUMN input TEXT`);
		}
	},
	{ name: 'checkpoint store tables (lg_*), earlier layout upgraded', up: createCheckpointStore },
	{ name: 'checkpoint store: integer keys for threads and checkpoints', up: useIntegerKeys },
	{
		// Uses today's store code (stock-import.ts) on the layout of migration 5: a migration that
		// changes that layout must keep this one working on the layout it finds, or freeze a copy.
		name: "import the stock SqliteSaver's checkpoints and writes",
		up: (db) => {
			const imported = importStockTables(db);
			if (imported.checkpoints === 0) return;
			return (
				`Checkpoints: imported ${imported.checkpoints} checkpoints and ${imported.writes} writes from the ` +
				'stock SQLite saver into the delta store (run VACUUM once to give the old space back)'
			);
		}
	}
];

export type MigrationReport = {
	/** `user_version` before and after. */
	from: number;
	to: number;
	/** What the migrations that ran had to say, for the log. */
	notes: string[];
};

/**
 * Applies the migrations the database lacks. Refuses, changing nothing, a database written by a
 * newer Sophos (more migrations than this one knows): its tables may not be what this code expects.
 */
export function migrate(db: Database.Database): MigrationReport {
	const from = db.pragma('user_version', { simple: true }) as number;
	if (from > MIGRATIONS.length) {
		throw new Error(
			`database schema version ${from} is newer than this Sophos knows (${MIGRATIONS.length}); use a newer Sophos with this file`
		);
	}
	const notes: string[] = [];
	for (let i = from; i < MIGRATIONS.length; i += 1) {
		const { up } = MIGRATIONS[i]!;
		db.transaction(() => {
			if (typeof up === 'string') db.exec(up);
			else {
				const note = up(db);
				if (note) notes.push(note);
			}
			db.pragma(`user_version = ${i + 1}`);
		})();
	}
	return { from, to: MIGRATIONS.length, notes };
}
