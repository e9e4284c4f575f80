import type Database from 'better-sqlite3';
import { createCheckpointStore } from './checkpoint/migrations/create-store';
import { useIntegerKeys } from './checkpoint/migrations/integer-keys';
import { PACK_TASK_IDS } from './checkpoint/migrations/binary-task-ids';
import { PACK_CHECKPOINT_IDS } from './checkpoint/migrations/binary-checkpoint-ids';
import { importStockTables } from './checkpoint/stock-import';

/**
 * One step of the schema. SQL, or a function of the database where the step must look at what an
 * earlier release left (a column it may lack, a table of an older layout). A function may return
 * a line for the operator's log.
 */
export type Migration = { name: string; up: string | ((db: Database.Database) => string | void) };

/** Migration 3's SQL as it first shipped. */
const APPROVALS = `-- Runs that pause for a person: status 'waiting', and the 'approval' runs that carry out their
	-- decisions. SQLite cannot change a CHECK constraint, so the table is rebuilt, rows in order.
	CREATE TABLE runs_with_approvals (
		id TEXT PRIMARY KEY,
		conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
		status TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'completed', 'failed', 'cancelled', 'waiting')),
		error_code TEXT,
		error_message TEXT,
		started_at TEXT NOT NULL,
		finished_at TEXT,
		trigger TEXT NOT NULL DEFAULT 'message' CHECK (trigger IN ('message', 'resume', 'auto-resume', 'approval')),
		input TEXT
	);
	INSERT INTO runs_with_approvals (id, conversation_id, status, error_code, error_message, started_at, finished_at, trigger, input)
		SELECT id, conversation_id, status, error_code, error_message, started_at, finished_at, trigger, input FROM runs ORDER BY rowid;
	DROP TABLE runs;
	ALTER TABLE runs_with_approvals RENAME TO runs;
	CREATE INDEX runs_by_conversation ON runs(conversation_id, started_at);
	CREATE UNIQUE INDEX one_running_run ON runs(conversation_id) WHERE status = 'running';
	-- A tool call that waits for a person, and what they decided: written when the step pauses,
	-- decided before the run that acts on it starts (approvals/, tools/approval-journal.ts).
	-- attempt: the call's attempts so far (tool_calls.attempts): 0 before it first ran, more when a
	-- crash left an attempt's outcome unknown and the person is asked whether to run it again.
	CREATE TABLE tool_approvals (
		thread_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
		tool_call_id TEXT NOT NULL,
		attempt INTEGER NOT NULL,
		run_id TEXT NOT NULL,
		tool TEXT NOT NULL,
		args TEXT NOT NULL,
		reason_kind TEXT NOT NULL CHECK (reason_kind IN ('policy', 'composed-url', 'uncertain')),
		reason TEXT NOT NULL,
		requested_at TEXT NOT NULL,
		expires_at TEXT NOT NULL,
		decision TEXT CHECK (decision IN ('approve', 'deny', 'edit')),
		decided_args TEXT,
		decision_reason TEXT,
		decided_at TEXT,
		PRIMARY KEY (thread_id, tool_call_id, attempt)
	);
	CREATE INDEX tool_approvals_undecided ON tool_approvals(expires_at) WHERE decision IS NULL;
	-- "Always allow this tool", until revoked.
	CREATE TABLE allowed_tools (
		tool TEXT PRIMARY KEY,
		since TEXT NOT NULL
	);`;

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
		// Migration 2 first shipped as above; a later release appended `ALTER TABLE runs ADD COLUMN
		// input TEXT` to it in place, so databases created at version 2 before that lack runs.input
		// and the others have it. This migration first shipped as APPROVALS alone, which copies
		// runs.input and so failed on the first kind; adding the column where it is missing first
		// changes nothing for a database that ran it then, which had the column.
		name: 'runs.input where missing; runs that wait for a person, tool approvals, allowed tools',
		up: (db) => {
			const columns = db.prepare(`SELECT name FROM pragma_table_info('runs')`).pluck().all();
			// The user message of a message run, kept with the run so a crash before it reached the
			// thread loses nothing: it is sent again on resume. In the thread, that message's id is the run's id.
			if (!columns.includes('input')) db.exec(`ALTER TABLE runs ADD COLUMN input TEXT`);
			db.exec(APPROVALS);
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
	},
	{
		name: 'branches: the active branch of each conversation, runs that start one, reused calls, queued edits',
		up: `-- Branches. A conversation whose thread has branched (an edit, a regenerate, a switch) reads its
	-- messages from, and starts its next run at, its active branch's head checkpoint; without a row,
	-- the thread's latest checkpoint. Each checkpoint put on the head moves the head to it, in the
	-- checkpoint's own transaction (the saver's onPut). \`switched_after_run\`: the newest run when the
	-- branch was last switched; it and older runs tell nothing about the branch now shown.
	CREATE TABLE conversation_branches (
		conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
		head TEXT NOT NULL,
		switched_after_run TEXT
	);
	-- Runs that start a branch: SQLite cannot widen a CHECK, so the table is rebuilt with its rows
	-- (rowids kept, since the list orders ties by them).
	CREATE TABLE runs_with_branches (
		id TEXT PRIMARY KEY,
		conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
		status TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'completed', 'failed', 'cancelled', 'waiting')),
		error_code TEXT,
		error_message TEXT,
		started_at TEXT NOT NULL,
		finished_at TEXT,
		trigger TEXT NOT NULL DEFAULT 'message'
			CHECK (trigger IN ('message', 'resume', 'auto-resume', 'approval', 'edit', 'regenerate')),
		input TEXT
	);
	INSERT INTO runs_with_branches (rowid, id, conversation_id, status, error_code, error_message, started_at, finished_at, trigger, input)
		SELECT rowid, id, conversation_id, status, error_code, error_message, started_at, finished_at, trigger, input FROM runs;
	DROP TABLE runs;
	ALTER TABLE runs_with_branches RENAME TO runs;
	CREATE INDEX runs_by_conversation ON runs(conversation_id, started_at);
	CREATE UNIQUE INDEX one_running_run ON runs(conversation_id) WHERE status = 'running';
	-- A call a new branch repeats is found by its tool and canonical arguments; the assistant message
	-- that made it names the branch it took effect in.
	ALTER TABLE tool_calls ADD COLUMN message_id TEXT;
	CREATE INDEX tool_calls_by_args ON tool_calls(thread_id, tool, args_hash);
	-- An edit or a regenerate queued with ifBusy "enqueue": the message it edits or regenerates.
	ALTER TABLE queued_messages ADD COLUMN edit_of TEXT;
	ALTER TABLE queued_messages ADD COLUMN regenerate TEXT;`
	},
	{
		name: 'the model of each conversation and of each queued message',
		up: `-- The model a conversation answers with (<provider>/<model>), set by the run that chose it and kept
	-- for later turns until another is chosen. NULL for conversations from before: they take DEFAULT_MODEL.
	ALTER TABLE conversations ADD COLUMN model TEXT;
	-- The model a message queued with ifBusy "enqueue" was sent with, applied when it starts.
	ALTER TABLE queued_messages ADD COLUMN model TEXT;`
	},
	{
		name: 'the call a journal entry was made for',
		up: `-- The call a journal entry was made for, as the model made it (canonicalArgsHash of its arguments
	-- before a person's edit): an entry answers only a call of the same id, step, tool and arguments
	-- (issue 21). NULL for entries from before, matched on args_hash.
	ALTER TABLE tool_calls ADD COLUMN call_hash TEXT;`
	},
	{ name: 'checkpoint store: pending writes name their task by its 16 bytes', up: PACK_TASK_IDS },
	{
		// Issue 21: the page's session cookie holds a random id, never SOPHOS_TOKEN; only a keyed digest
		// of the id is kept, with its expiry (http/session-keeper.ts).
		name: 'the page sessions, by digest',
		up: `CREATE TABLE sessions (
		digest TEXT PRIMARY KEY,
		expires_at TEXT NOT NULL
	);
	CREATE INDEX sessions_by_expiry ON sessions (expires_at);`
	},
	{ name: 'checkpoint store: checkpoint ids as their 16 bytes', up: PACK_CHECKPOINT_IDS },
	{
		name: 'the metadata of each thread',
		up: `-- What a client of the LangGraph Agent Server protocol stores with a thread (agent-protocol/):
	-- JSON text with every object's keys sorted (canonical-json.ts), so a search compares values as text.
	-- Text in PostgreSQL too, so a migration between the engines copies it as it copies any column.
	ALTER TABLE conversations ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';`
	},
	{
		// OAuth sign-ins to remote MCP servers (mcp/oauth/), kept in the database rather
		// than in files beside mcp.json; a sign-in under way lives until its callback or its expiry.
		name: 'OAuth sign-ins to remote MCP servers',
		up: `CREATE TABLE mcp_auth (
		server TEXT PRIMARY KEY,
		client TEXT,
		tokens TEXT,
		expires_at TEXT,
		updated_at TEXT NOT NULL
	);
	CREATE TABLE mcp_sign_ins (
		state TEXT PRIMARY KEY,
		server TEXT NOT NULL,
		verifier TEXT NOT NULL,
		redirect_uri TEXT NOT NULL,
		expires_at TEXT NOT NULL
	);`
	},
	{
		// Nothing to change in the tables: values written from here on may be deflated with
		// DICTIONARY_V2 (checkpoint/blob.ts), which a release before it cannot read. The version this
		// records makes such a release refuse the file at start rather than fail on reading a value.
		name: 'checkpoint store: values deflated with dictionary 2',
		up: () => undefined
	},
	{
		// Tables read only by their TEXT key: as rowid tables they stored each key twice (the row and
		// the key's index) and every file paid an index page for each, used or not.
		name: 'sessions and MCP sign-ins keyed by their text alone (WITHOUT ROWID)',
		up: `CREATE TABLE sessions_by_key (
		digest TEXT PRIMARY KEY,
		expires_at TEXT NOT NULL
	) WITHOUT ROWID;
	INSERT INTO sessions_by_key SELECT digest, expires_at FROM sessions;
	DROP TABLE sessions;
	ALTER TABLE sessions_by_key RENAME TO sessions;
	CREATE INDEX sessions_by_expiry ON sessions (expires_at);
	CREATE TABLE mcp_auth_by_key (
		server TEXT PRIMARY KEY,
		client TEXT,
		tokens TEXT,
		expires_at TEXT,
		updated_at TEXT NOT NULL
	) WITHOUT ROWID;
	INSERT INTO mcp_auth_by_key SELECT server, client, tokens, expires_at, updated_at FROM mcp_auth;
	DROP TABLE mcp_auth;
	ALTER TABLE mcp_auth_by_key RENAME TO mcp_auth;
	CREATE TABLE mcp_sign_ins_by_key (
		state TEXT PRIMARY KEY,
		server TEXT NOT NULL,
		verifier TEXT NOT NULL,
		redirect_uri TEXT NOT NULL,
		expires_at TEXT NOT NULL
	) WITHOUT ROWID;
	INSERT INTO mcp_sign_ins_by_key SELECT state, server, verifier, redirect_uri, expires_at FROM mcp_sign_ins;
	DROP TABLE mcp_sign_ins;
	ALTER TABLE mcp_sign_ins_by_key RENAME TO mcp_sign_ins;`
	}
];
