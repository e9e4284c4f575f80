// The app's storage contract: what the runtime asks of conversations, runs, the message queue, the
// tool call journal, approvals and branches, asynchronous and engine-independent, so one runtime can run on the
// embedded SQLite file or on a PostgreSQL database shared by several processes. Implemented by
// sqlite/app-storage.ts and postgres/app/; both pass one shared suite (test/support/app-storage-suite.ts).
// Operations that must be atomic are operations of their own, not transactions a caller composes,
// and the limits that hold across processes (MAX_CONCURRENT_RUNS, MAX_QUEUED_MESSAGES) are kept
// where the rows are written.

import type {
	AllowedTool,
	ConversationPage,
	ConversationSummary,
	PendingApproval,
	QueuedMessage,
	RunRecord,
	RunTrigger
} from '../../protocol';
import type { CheckedDecision, ApprovalRequest, RecordedDecision } from './approval-records';
import type { RunOutcome } from './run-records';
import type { JournalEntry, JournalOutcome } from './journal-records';
import type { ThreadFilter, ThreadMetadata, ThreadPageRequest, ThreadRecord } from './thread-records';
import type { ConversationRecords } from './transfer-records';
import type { ThreadCheckpoint } from '../checkpoint/thread-put';

export interface AppStorageLimits {
	/** MAX_CONCURRENT_RUNS: runs holding a claim at once, counted over every process on the database. */
	maxConcurrentRuns: number;
	/** MAX_QUEUED_MESSAGES: messages waiting on one conversation. */
	maxQueuedMessages: number;
}

/**
 * How a claim came out: the new run holds the conversation; another run does; or
 * maxConcurrentRuns runs are running already (and the conversation is not busy itself, so
 * enqueue and interrupt answer as they would below the cap).
 */
export type Claim = 'claimed' | 'busy' | 'full';

export type ConversationDeletion = 'deleted' | 'not-found' | 'running';

/** MAX_QUEUED_MESSAGES already wait on the conversation. */
export type QueueFull = { refused: 'queue-full'; maxQueuedMessages: number };

export interface ConversationStorage {
	get(id: string): Promise<ConversationSummary | undefined>;
	exists(id: string): Promise<boolean>;
	/** The `limit` most recently updated, and whether there are more (the list's order, cut short). */
	firstPage(limit: number): Promise<ConversationPage>;
	/**
	 * Creates the conversation (answering with `model`, or DEFAULT_MODEL) and claims its first run (a
	 * message run carrying `firstMessage`) in one transaction; 'full' creates nothing (there is no
	 * run to queue behind). Throws, changing nothing, when the id is taken.
	 */
	createWithRun(id: string, runId: string, firstMessage: string, now: string, model?: string): Promise<'claimed' | 'full'>;
	/** The `<provider>/<model>` the conversation's runs answer with; null: DEFAULT_MODEL. */
	model(id: string): Promise<string | null>;
	/** Chooses the model for this and later runs; only a run that has claimed the conversation does this. */
	setModel(id: string, model: string): Promise<void>;
	/**
	 * Removes the conversation with its runs, queued messages, journal entries and checkpoints, in one
	 * transaction committed durably (a power cut cannot bring it back). 'not-found' for an unknown
	 * conversation and 'running' while a run holds it, changing nothing.
	 */
	delete(id: string): Promise<ConversationDeletion>;
}

/**
 * Conversations as threads of the LangGraph Agent Server protocol (agent-protocol/): one store, so
 * a thread an SDK client makes is a conversation on Sophos's page and every conversation is a
 * thread. The metadata is the client's: Sophos stores it and filters on it, never reads it.
 */
export interface ThreadStorage {
	/**
	 * Creates a conversation with no run (title "New Conversation", DEFAULT_MODEL) holding `metadata`;
	 * 'exists', changing nothing, when the id is taken.
	 */
	create(id: string, now: string, metadata: ThreadMetadata): Promise<'created' | 'exists'>;
	get(id: string): Promise<ThreadRecord | undefined>;
	/** Sets each key of `patch` in the thread's metadata, keeping the others; false for an unknown thread. */
	mergeMetadata(id: string, patch: ThreadMetadata): Promise<boolean>;
	/** The threads `filter` keeps, in `page.order` (ties: the order they were made in), `limit` from `offset`. */
	search(filter: ThreadFilter, page: ThreadPageRequest): Promise<ThreadRecord[]>;
	count(filter: ThreadFilter): Promise<number>;
}

/**
 * The run ledger. A run is claimed by inserting its `running` row; the engine's unique index on a
 * conversation's running run refuses a second claim, whoever makes it, in whatever process.
 */
export interface RunStorage {
	/**
	 * Claims the conversation for a new run, within maxConcurrentRuns, with nothing slipping between
	 * the count and the claim in any process. In the same commit, when claimed: a run that sends a
	 * message (a message, an edit) moves the conversation to the top of the list; `model`, the one
	 * the run chose, becomes the conversation's; `branchFrom`, the checkpoint a run that starts a
	 * branch begins at, becomes the active branch's head.
	 */
	claim(
		conversationId: string,
		runId: string,
		now: string,
		trigger: RunTrigger,
		input: string | null,
		also?: { branchFrom?: string; model?: string }
	): Promise<Claim>;
	/** Moves the conversation to the top of the list once its run is sure to go ahead. */
	touchConversation(conversationId: string, now: string): Promise<void>;
	/** Undoes a claim that turned out to have nothing to run; a finished run is never released. */
	releaseClaim(runId: string): Promise<void>;
	/**
	 * Records the run's outcome and the conversation's message count together. Only a `running` run
	 * changes, so of two racing outcomes exactly one is kept; returns whether this was it.
	 */
	finish(runId: string, outcome: RunOutcome, now: string): Promise<boolean>;
	get(runId: string): Promise<(RunRecord & { conversationId: string }) | undefined>;
	hasRunning(conversationId: string): Promise<boolean>;
	/** Newest first. */
	list(conversationId: string): Promise<RunRecord[]>;
	listRunning(): Promise<{ id: string; conversationId: string }[]>;
	/** Conversations whose latest run waits for a person's decision, in the whole database (sophos_waiting_runs). */
	countWaiting(): Promise<number>;
	/** What a run reads of its conversation as it begins, in one read (RunOpening). */
	opening(conversationId: string): Promise<RunOpening>;
}

/**
 * What a run reads of its conversation as it begins, in one read (on PostgreSQL each read is a
 * round trip, issue 26). None of it changes while the run holds the conversation: only the run
 * that holds it chooses a model, moves the head by a put, or asks a person.
 */
export type RunOpening = {
	/** As ConversationStorage.model: null is DEFAULT_MODEL. */
	model: string | null;
	/** As BranchStorage.head: undefined until the thread first branches. */
	head: string | undefined;
	/** Calls of the thread wait for a person's decision. */
	awaitingDecision: boolean;
	/** The conversation's newest two runs, newest first: the run itself and the one before it. */
	latestRuns: { id: string; trigger: RunTrigger }[];
};

/**
 * Messages waiting for a conversation's active run to end, or for room under maxConcurrentRuns
 * (ifBusy "enqueue"), oldest first.
 */
export interface QueueStorage {
	/**
	 * An edit carries the message it replaces, a regenerate the answer it replaces (and no text);
	 * `model`: the one it was sent with, chosen when it starts. Refused, changing nothing, when
	 * maxQueuedMessages already wait on the conversation.
	 */
	add(
		conversationId: string,
		id: string,
		message: string,
		now: string,
		queued?: { editOf?: string; regenerate?: string; model?: string }
	): Promise<'queued' | QueueFull>;
	list(conversationId: string): Promise<QueuedMessage[]>;
	/** Drops a queued message that can no longer start (its branch point is gone). */
	delete(id: string): Promise<void>;
	/** Conversations with queued messages, the one waiting longest first. */
	conversationsWaiting(): Promise<string[]>;
	/** Messages queued on every conversation (sophos_queued_messages). */
	countAll(): Promise<number>;
	/**
	 * Claims a run for the queued message `queuedId` as RunStorage.claim does, and takes the message
	 * off the queue when the claim succeeds, in the same transaction.
	 */
	claimQueued(
		conversationId: string,
		queuedId: string,
		run: { runId: string; now: string; trigger: RunTrigger; input: string | null; branchFrom?: string; model?: string }
	): Promise<Claim>;
}

/**
 * The tool call journal: an intent when the MCP request goes out (not while it waits its turn), its
 * outcome after the answer, so a resumed step knows which calls finished, which were never sent and
 * which were in flight.
 */
export interface JournalStorage {
	get(threadId: string, toolCallId: string): Promise<JournalEntry | undefined>;
	/**
	 * A repeated intent for a call without an outcome counts an attempt. `durable`: committed so a
	 * power cut cannot undo it, for a call that may not be repeated.
	 */
	recordIntent(entry: Omit<JournalEntry, 'attempts' | 'outcome' | 'result'>, now: string, durable: boolean): Promise<void>;
	/** Calls of the thread to `tool` with these arguments (canonicalArgsHash) that succeeded, oldest first, any branch. */
	succeededWith(threadId: string, tool: string, argsHash: string): Promise<JournalEntry[]>;
	/**
	 * The first outcome recorded for a call is the one kept. `runId`: the run recording it (on a
	 * shared database, only its owner may), which may be a later run than the attempt's, reporting
	 * a call a crash left unknown.
	 */
	recordOutcome(threadId: string, toolCallId: string, runId: string, outcome: JournalOutcome, now: string): Promise<void>;
}

/**
 * The approval half of the journal: a request when a tools step pauses on a call, the person's
 * decision before any run acts on it. A decided call keeps its first decision.
 */
export interface ApprovalStorage {
	/** Asks about each call once per attempt (asking again changes nothing); committed durably. */
	request(threadId: string, runId: string, requests: readonly ApprovalRequest[], now: string, expiresAt: string): Promise<void>;
	/** The calls the thread waits on, in the order they were asked about. */
	pending(threadId: string): Promise<PendingApproval[]>;
	/** The decision on the question asked before attempt `attempt` + 1 of the call, if made. */
	decision(threadId: string, toolCallId: string, attempt: number): Promise<RecordedDecision | undefined>;
	/**
	 * Claims the approval run that carries out a person's decisions and, once claimed, records them
	 * with the tools to allow from now on, in one durable transaction: `check` turns the calls
	 * waiting then into the decisions to record, or throws to refuse them (the claim is then undone).
	 * Unless 'claimed', nothing is recorded and `check` is not called.
	 */
	decideWithRun(
		conversationId: string,
		runId: string,
		now: string,
		check: (pending: readonly PendingApproval[]) => readonly CheckedDecision[]
	): Promise<Claim>;
	/** Denies every call the thread waits on, with one reason (the conversation moved on, a timeout). */
	denyPending(threadId: string, reason: string, now: string): Promise<void>;
	/** Threads with a call nobody decided by `now`. */
	expiredThreads(now: string): Promise<string[]>;
	/** When the next undecided call expires, if any waits. */
	nextExpiryAt(): Promise<string | null>;
}

/** "Always allow this tool", until revoked. */
export interface AllowedToolStorage {
	/** By tool name. */
	list(): Promise<AllowedTool[]>;
	has(tool: string): Promise<boolean>;
	/** Allowing an allowed tool again keeps its first `since`. */
	allow(tool: string, now: string): Promise<void>;
	/** Whether the tool was allowed. */
	revoke(tool: string): Promise<boolean>;
}

/**
 * The active branch of each conversation whose thread has branched: the checkpoint its messages are
 * read from and its next run starts at. Without one, the thread's latest checkpoint. The head follows
 * each checkpoint put on it inside that put's transaction, which is the saver's to do (the SQLite
 * saver's onPut; DeltaPostgresSaver's onPut with postgres/app/branch-storage.ts advanceBranchHead).
 */
export interface BranchStorage {
	head(conversationId: string): Promise<string | undefined>;
	/** The newest run when the branch was last switched, if it ever was. */
	switchedAfterRun(conversationId: string): Promise<string | null>;
	/**
	 * Makes the branch ending at `checkpointId` the active one, in one transaction with the checks
	 * that refuse it: 'busy' while a run holds the conversation, 'waiting' while calls of the active
	 * branch wait for a decision; then nothing changes. Remembers the conversation's newest run (see
	 * readThreadWork), and the conversation takes the branch's message count and, when known, its
	 * last write time. No run can be claimed between the checks and the switch.
	 */
	switchTo(
		conversationId: string,
		checkpointId: string,
		shown: { messageCount: number; updatedAt: string | undefined }
	): Promise<'switched' | 'busy' | 'waiting'>;
}

/**
 * A conversation taken out whole and put back whole, for its bundle (conversations/bundle-*.ts):
 * its rows, and with them on the way in its checkpoints.
 */
export interface TransferStorage {
	/** The conversation's row, branch head, runs (oldest first), journal and approvals; undefined for an unknown id. */
	read(conversationId: string): Promise<ConversationRecords | undefined>;
	/**
	 * Creates the conversation with its rows and puts its checkpoints (parents first, as given) in
	 * one transaction: all of it or nothing (a row refused after the puts takes them back too). No branch head moves with the puts; the records' branch
	 * is the head. Nothing changes when an id the records carry is another conversation's: the
	 * conversation id, or a run id (run ids are unique in the whole database, while tool calls,
	 * approvals and checkpoints are keyed by their conversation). Each engine judges that by its own
	 * uniqueness check inside the transaction, so a concurrent writer of the same id cannot slip in.
	 */
	create(records: ConversationRecords, checkpoints: readonly ThreadCheckpoint[]): Promise<TransferResult>;
}

/** What TransferStorage.create did; `runIds`: every run id of the records another conversation holds. */
export type TransferResult = { status: 'created' } | { status: 'conversation-taken' } | { status: 'runs-taken'; runIds: string[] };

/** A run whose owner died, now this instance's to judge (runs/run-recovery.ts). */
export type OrphanedRun = { id: string; conversationId: string };

/**
 * Run ownership where several instances share the database: each `running` run is owned by the
 * instance that claimed it, under a lease (RUN_LEASE_MS) the owner renews by heartbeat. Every write
 * of a run (its outcome, checkpoints, journal entries, approval requests) is refused unless this
 * instance still owns it, so an instance that was paused past its lease writes nothing once another
 * has taken the run over.
 */
export interface RunLeases {
	/**
	 * Extends the leases of these runs (the ones this instance executes) where it still owns them,
	 * running; returns those. A run it owns but no longer executes (its outcome could not be written,
	 * the database away) is left to expire, so recovery judges it instead of it holding its
	 * conversation for as long as this instance lives.
	 */
	renew(runIds: readonly string[]): Promise<ReadonlySet<string>>;
	/** Takes over every running run whose lease has ended, whoever owned it; each is taken by one instance. */
	takeOverExpired(): Promise<OrphanedRun[]>;
	/**
	 * At start, before any run: takeOverExpired, and the runs a previous process under this
	 * instance's name left running (it is dead, since this one has its name).
	 */
	takeOverAtStart(): Promise<OrphanedRun[]>;
}

/**
 * The page's sign-in sessions (POST /api/session), each known only by a digest of its id keyed with
 * SOPHOS_TOKEN (http/session-keeper.ts): a stolen database holds no usable cookie, and a new token
 * leaves every old digest unmatched. Timestamps are ISO text; a session is live until `expiresAt`.
 */
export interface SessionStorage {
	create(digest: string, expiresAt: string): Promise<void>;
	/** Whether a session with this digest exists and `now` is before its expiry. */
	isLive(digest: string, now: string): Promise<boolean>;
	/** Ends the session (logout); false when there was none. */
	delete(digest: string): Promise<boolean>;
	/** Drops the sessions expired at `now`; how many there were. */
	prune(now: string): Promise<number>;
}

/**
 * What Sophos keeps of its OAuth sign-in to one remote MCP server (mcp/oauth/): the client it
 * registered (or was given), its tokens and when the access token expires, each as the JSON the
 * oauth module wrote and parses again. Secrets: read only by mcp/oauth/, never answered or logged.
 */
export type McpAuthRecord = {
	client: string | null;
	tokens: string | null;
	/** ISO text; null when the authorization server gave no lifetime. */
	expiresAt: string | null;
};

/** A sign-in under way, found again by its `state` when the browser comes back to the callback. */
export type PendingSignIn = { server: string; verifier: string; redirectUri: string };

/** What a refresh under the lock decided: new tokens, nothing to do, or sign in again. */
export type TokenRefresh = { tokens: string; expiresAt: string | null } | 'keep' | 'forget';

export interface McpAuthStorage {
	get(server: string): Promise<McpAuthRecord | undefined>;
	saveClient(server: string, client: string, now: string): Promise<void>;
	saveTokens(server: string, tokens: string, expiresAt: string | null, now: string): Promise<void>;
	/** Sign-out (`tokens`), or a client the authorization server no longer knows (`all`); false when nothing was kept. */
	forget(server: string, what: 'tokens' | 'all'): Promise<boolean>;
	/** Remembers a sign-in begun, until `expiresAt`. */
	beginSignIn(state: string, pending: PendingSignIn, expiresAt: string): Promise<void>;
	/**
	 * Takes the sign-in of `server` that `state` names, once: a second take of the same state (a
	 * replayed callback), an unknown or expired one, or one begun for another server is undefined,
	 * and leaves every sign-in as it was. Expired ones are dropped on the way.
	 */
	takeSignIn(state: string, server: string, now: string): Promise<PendingSignIn | undefined>;
	/**
	 * Runs `decide` on the server's record while holding its refresh lock, across every process on the
	 * database, and writes what it decides before the lock is let go: a second instance that wanted
	 * to refresh the same token waits, then sees the new one and keeps it. Returns the record after.
	 */
	refreshUnderLock(server: string, now: string, decide: (current: McpAuthRecord | undefined) => Promise<TokenRefresh>): Promise<McpAuthRecord | undefined>;
}

export interface AppStorage {
	conversations: ConversationStorage;
	threads: ThreadStorage;
	runs: RunStorage;
	queue: QueueStorage;
	journal: JournalStorage;
	approvals: ApprovalStorage;
	allowedTools: AllowedToolStorage;
	branches: BranchStorage;
	sessions: SessionStorage;
	transfer: TransferStorage;
	mcpAuth: McpAuthStorage;
}
