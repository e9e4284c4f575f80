// The PostgreSQL schema of Sophos: one numbered list for every table the engine owns, applied by
// migrate.ts.

/**
 * Append-only: a shipped migration is never edited, only followed by a new one, so every database
 * converges on the same schema. Migration N (1-based) is recorded in `sophos_migrations` as version
 * N in the same transaction that applies it.
 */
export const MIGRATIONS: readonly string[] = [
	`-- Checkpoints (checkpoint/): the delta layout of the SQLite store, keyed by a thread surrogate.
	-- One row per (thread, namespace); every other checkpoint table hangs off it and is removed
	-- with it. The row is also the lock that serialises puts to one thread across connections.
	CREATE TABLE lg_threads (
		thread_key integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		thread_id text NOT NULL,
		checkpoint_ns text NOT NULL,
		UNIQUE (thread_id, checkpoint_ns)
	);
	-- COLLATE "C": checkpoint ids (uuid6) sort by time bytewise, whatever the database's collation.
	CREATE TABLE lg_checkpoints (
		thread_key integer NOT NULL REFERENCES lg_threads ON DELETE CASCADE,
		checkpoint_id text COLLATE "C" NOT NULL,
		parent_checkpoint_id text COLLATE "C",
		type text NOT NULL,          -- serde type of checkpoint and metadata
		checkpoint bytea NOT NULL,   -- the checkpoint without id and channel_values
		metadata jsonb NOT NULL,     -- list() filters on it with @>, as the stock PostgresSaver does
		channels bytea NOT NULL,     -- JSON ChannelMap: where each channel value lives
		encoding smallint NOT NULL,  -- of checkpoint and channels (checkpoint/blob.ts)
		PRIMARY KEY (thread_key, checkpoint_id)
	);
	-- A log id is never reused and a log's length never decreases, so an item (log_id, seq) is
	-- written once for the life of the database and any process may cache it.
	CREATE TABLE lg_logs (
		log_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		thread_key integer NOT NULL REFERENCES lg_threads ON DELETE CASCADE,
		length integer NOT NULL
	);
	CREATE INDEX lg_logs_by_thread ON lg_logs (thread_key);
	CREATE TABLE lg_log_items (
		log_id integer NOT NULL REFERENCES lg_logs ON DELETE CASCADE,
		seq integer NOT NULL,
		type text NOT NULL,
		value bytea NOT NULL,
		encoding smallint NOT NULL,
		PRIMARY KEY (log_id, seq)
	);
	CREATE TABLE lg_writes (
		thread_key integer NOT NULL REFERENCES lg_threads ON DELETE CASCADE,
		checkpoint_id text COLLATE "C" NOT NULL,
		task_id text COLLATE "C" NOT NULL,
		idx integer NOT NULL,
		channel text NOT NULL,
		type text NOT NULL,
		value bytea NOT NULL,
		encoding smallint NOT NULL,  -- blob.ts encodings, or a link to log items (write-links.ts)
		task_path text COLLATE "C" NOT NULL,
		PRIMARY KEY (thread_key, checkpoint_id, task_id, idx)
	);`,
	`-- The app's tables (app/), as the SQLite file's (db/migrations.ts). \`seq\` keeps insertion
	-- order, which SQLite's rowid gives: it breaks ties between equal timestamps.
	CREATE TABLE conversations (
		id text PRIMARY KEY,
		seq bigint GENERATED ALWAYS AS IDENTITY,
		title text NOT NULL,
		created_at timestamptz NOT NULL,
		updated_at timestamptz NOT NULL,
		message_count integer NOT NULL DEFAULT 0,
		-- The model it answers with (<provider>/<model>), set by the run that chose it; NULL: DEFAULT_MODEL.
		model text
	);
	CREATE INDEX conversations_by_update ON conversations (updated_at DESC, seq DESC);
	CREATE TABLE runs (
		id text PRIMARY KEY,
		seq bigint GENERATED ALWAYS AS IDENTITY,
		conversation_id text NOT NULL REFERENCES conversations ON DELETE CASCADE,
		status text NOT NULL CHECK (status IN ('running', 'interrupted', 'completed', 'failed', 'cancelled', 'waiting')),
		trigger text NOT NULL CHECK (trigger IN ('message', 'resume', 'auto-resume', 'approval', 'edit', 'regenerate')),
		-- The user message of a message run, sent again on resume if a crash kept it from the thread.
		input text,
		error_code text,
		error_message text,
		started_at timestamptz NOT NULL,
		finished_at timestamptz
	);
	CREATE INDEX runs_by_conversation ON runs (conversation_id, started_at DESC, seq DESC);
	-- One active run per conversation, enforced where two instances or two requests cannot race it.
	CREATE UNIQUE INDEX one_running_run ON runs (conversation_id) WHERE status = 'running';
	CREATE TABLE tool_calls (
		thread_id text NOT NULL REFERENCES conversations ON DELETE CASCADE,
		tool_call_id text NOT NULL,
		run_id text NOT NULL,
		step integer NOT NULL,
		tool text NOT NULL,
		args_hash text NOT NULL,
		idempotency_key text NOT NULL,
		-- The assistant message that made the call: it names the branch the call was made in.
		message_id text,
		attempts integer NOT NULL DEFAULT 1,
		intent_at timestamptz NOT NULL,
		outcome text CHECK (outcome IN ('success', 'error', 'cancelled')),
		result text,
		outcome_at timestamptz,
		PRIMARY KEY (thread_id, tool_call_id)
	);
	-- A call a new branch repeats is found by its tool and canonical arguments.
	CREATE INDEX tool_calls_by_args ON tool_calls (thread_id, tool, args_hash);
	CREATE TABLE queued_messages (
		id text PRIMARY KEY,
		seq bigint GENERATED ALWAYS AS IDENTITY,
		conversation_id text NOT NULL REFERENCES conversations ON DELETE CASCADE,
		message text NOT NULL,
		created_at timestamptz NOT NULL,
		-- A queued edit: the user message it replaces; a queued regenerate: the answer it replaces.
		edit_of text,
		regenerate text,
		-- The model it was sent with, chosen when it starts.
		model text
	);
	CREATE INDEX queued_by_conversation ON queued_messages (conversation_id, created_at, seq);
	-- A tool call that waits for a person, and what they decided (tools/approval-journal.ts);
	-- attempt: the call's attempts so far (tool_calls.attempts) when it was asked about.
	CREATE TABLE tool_approvals (
		thread_id text NOT NULL REFERENCES conversations ON DELETE CASCADE,
		tool_call_id text NOT NULL,
		attempt integer NOT NULL,
		seq bigint GENERATED ALWAYS AS IDENTITY,
		run_id text NOT NULL,
		tool text NOT NULL,
		args text NOT NULL,
		reason_kind text NOT NULL CHECK (reason_kind IN ('policy', 'composed-url', 'uncertain')),
		reason text NOT NULL,
		requested_at timestamptz NOT NULL,
		expires_at timestamptz NOT NULL,
		decision text CHECK (decision IN ('approve', 'deny', 'edit')),
		decided_args text,
		decision_reason text,
		decided_at timestamptz,
		PRIMARY KEY (thread_id, tool_call_id, attempt)
	);
	CREATE INDEX tool_approvals_undecided ON tool_approvals (expires_at) WHERE decision IS NULL;
	-- "Always allow this tool", until revoked.
	CREATE TABLE allowed_tools (
		tool text PRIMARY KEY,
		since timestamptz NOT NULL
	);
	-- The active branch of a conversation whose thread has branched (app/branch-storage.ts).
	CREATE TABLE conversation_branches (
		conversation_id text PRIMARY KEY REFERENCES conversations ON DELETE CASCADE,
		head text NOT NULL,
		switched_after_run text
	);`,
	`-- Several instances (postgres/app/run-leases.ts): a running run is owned by the instance that
	-- claimed it until its lease ends; the owner renews it by heartbeat, and another instance takes
	-- over a run whose lease has ended. Only the owner may write the run's outcome, checkpoints and
	-- journal entries. Runs claimed before this migration have no owner: their lease has ended.
	ALTER TABLE runs ADD COLUMN owner text, ADD COLUMN lease_until timestamptz;
	CREATE INDEX runs_by_lease ON runs (lease_until) WHERE status = 'running';`,
	`-- A run's events, kept so any instance can serve its stream (events/). One row per batch the
	-- owner flushed: events first_id..last_id (consecutive EventLog ids) as a JSON array of
	-- [event, data]. A run's terminal row ends it: no row is appended after it (the append function
	-- refuses), so an owner that lost its run cannot add to it. next_run_id: the run that carries on
	-- after a takeover resumed it, whose ids start at next_first_id.
	CREATE TABLE run_events (
		run_id text NOT NULL REFERENCES runs ON DELETE CASCADE,
		first_id bigint NOT NULL,
		last_id bigint NOT NULL,
		events text NOT NULL,
		terminal boolean NOT NULL DEFAULT false,
		next_run_id text,
		next_first_id bigint,
		PRIMARY KEY (run_id, first_id)
	);
	CREATE UNIQUE INDEX one_terminal_row ON run_events (run_id) WHERE terminal;
	CREATE INDEX run_events_by_successor ON run_events (next_run_id) WHERE next_run_id IS NOT NULL;
	-- Cancels asked of a run's owner (events/run-cancel.ts): kept until the run's events are swept, so
	-- an owner that was disconnected when the NOTIFY went out finds the request when it is back.
	CREATE TABLE run_cancels (
		run_id text PRIMARY KEY REFERENCES runs ON DELETE CASCADE,
		requested_at timestamptz NOT NULL DEFAULT now()
	);
	-- Appends one batch in one round trip, serialised per run by a lock so that a batch and a
	-- takeover's terminal row never interleave: after the lock each statement sees what committed
	-- before it. p_first NULL: the id after the run's last kept one (a takeover's terminal event).
	-- Returns the batch's first id; NULL when the run already has its terminal row.
	CREATE FUNCTION sophos_append_run_events(
		p_run text, p_first bigint, p_count integer, p_events text,
		p_terminal boolean, p_next_run text, p_next_first bigint
	) RETURNS bigint LANGUAGE plpgsql AS $$
	DECLARE
		v_first bigint := p_first;
	BEGIN
		PERFORM pg_advisory_xact_lock(hashtextextended('run_events:' || p_run, 0));
		IF EXISTS (SELECT 1 FROM run_events WHERE run_id = p_run AND terminal) THEN
			RETURN NULL;
		END IF;
		IF v_first IS NULL THEN
			v_first := coalesce(
				(SELECT max(last_id) FROM run_events WHERE run_id = p_run),
				(SELECT next_first_id - 1 FROM run_events WHERE next_run_id = p_run LIMIT 1),
				0
			) + 1;
		END IF;
		-- A retry of a batch whose commit was not confirmed finds it already there.
		INSERT INTO run_events (run_id, first_id, last_id, events, terminal, next_run_id, next_first_id)
		VALUES (p_run, v_first, v_first + p_count - 1, p_events, p_terminal, p_next_run, p_next_first)
		ON CONFLICT (run_id, first_id) DO NOTHING;
		PERFORM pg_notify('sophos_run_events', p_run);
		RETURN v_first;
	END $$;`,
	`-- The call a journal entry was made for, as the model made it (canonicalArgsHash of its arguments
	-- before a person's edit): an entry answers only a call of the same id, step, tool and arguments
	-- (issue 21). NULL for entries from before, matched on args_hash.
	ALTER TABLE tool_calls ADD COLUMN call_hash text;`,
	// Issue 21: the page's session cookie holds a random id, never SOPHOS_TOKEN; only a keyed digest
	// of the id is kept, with its expiry (http/session-keeper.ts).
	`CREATE TABLE sessions (
		digest text PRIMARY KEY,
		expires_at timestamptz NOT NULL
	);
	CREATE INDEX sessions_by_expiry ON sessions (expires_at);`,
	`-- What a client of the LangGraph Agent Server protocol stores with a thread (agent-protocol/):
	-- canonical JSON text as in the SQLite file, which a migration between the engines copies as is;
	-- searches compare it as jsonb.
	ALTER TABLE conversations ADD COLUMN metadata text NOT NULL DEFAULT '{}';`,
	// OAuth sign-ins to remote MCP servers (mcp/oauth/), shared by every instance; a
	// sign-in under way lives until its callback or its expiry.
	`CREATE TABLE mcp_auth (
		server text PRIMARY KEY,
		client text,
		tokens text,
		expires_at timestamptz,
		updated_at timestamptz NOT NULL
	);
	CREATE TABLE mcp_sign_ins (
		state text PRIMARY KEY,
		server text NOT NULL,
		verifier text NOT NULL,
		redirect_uri text NOT NULL,
		expires_at timestamptz NOT NULL
	);`,
	`-- Nothing to change in the tables: values written from here on may be deflated with DICTIONARY_V2
	-- (checkpoint/blob.ts), which a release before it cannot read. The version this records makes such
	-- a release refuse the database at start rather than fail on reading a value.
	SELECT 1;`,
	`-- Answers to a tool server's question (MCP elicitation) sent to an instance other than the one
	-- running its call (events/elicitation-answers.ts): the owner takes each once, holding its row,
	-- and writes what it came to; the sender reads that and deletes the row. Rows a sender left
	-- behind go with the run's kept events.
	CREATE TABLE elicitation_answers (
		id text PRIMARY KEY,
		run_id text NOT NULL REFERENCES runs ON DELETE CASCADE,
		elicitation_id text NOT NULL,
		answer text NOT NULL,
		outcome text
	);
	CREATE INDEX elicitation_answers_by_run ON elicitation_answers (run_id);`,
	// Readers of a run on instances that do not execute it, and their wishes that it be cancelled
	// once none is left (events/run-readers.ts): a reader's row counts until `until`, which its
	// process renews, so a dead process's readers stop counting; a wish is taken once by the owner.
	`CREATE TABLE run_readers (
		id text PRIMARY KEY,
		run_id text NOT NULL REFERENCES runs ON DELETE CASCADE,
		instance_id text NOT NULL,
		until timestamptz NOT NULL
	);
	CREATE INDEX run_readers_by_run ON run_readers (run_id);
	CREATE INDEX run_readers_by_instance ON run_readers (instance_id);
	CREATE TABLE run_unfollowed (
		id text PRIMARY KEY,
		run_id text NOT NULL REFERENCES runs ON DELETE CASCADE
	);
	CREATE INDEX run_unfollowed_by_run ON run_unfollowed (run_id);`
];
