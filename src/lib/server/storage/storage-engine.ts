// What the runtime gets from the engine DATABASE_URL chose (storage/engine.ts): the app's storage,
// the checkpointer, its history and, where several instances share the database, leases and the
// run stream across them.

import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { HandsOverLatest } from '../checkpoint/handed-over';
import type { ElicitationAnswer, ElicitationAnswerOutcome, PendingElicitation, RunEvent } from '../../protocol';
import type { EventLog } from '../stream/event-log';
import type { LiveResponseOptions } from '../stream/sse-response';
import type { AppStorage } from './app-storage';
import type { RunLeases } from './run-leases';
import type { CheckpointHistory } from './checkpoint-history';
import type { PoolUse } from '../telemetry/pool-metrics';

/**
 * Where several instances serve one run (PostgreSQL): its events kept durably in batches and
 * announced, so a reader on any instance follows it with Last-Event-ID replay, and a cancel sent to
 * any instance reaches the instance that executes it.
 */
export interface SharedRuns {
	/**
	 * Before the run publishes: its events are kept, a cancel from any instance calls `abort`, an
	 * answer to one of its questions sent to any instance is given to `answer`, and
	 * `cancelIfUnfollowed` is called when a reader on another instance left asking for the cancel
	 * (on_disconnect "cancel") and no reader is left on any other. Returns its detach, for its end.
	 */
	attach(run: {
		id: string;
		log: EventLog;
		abort(): void;
		cancelIfUnfollowed(): void;
		answer(elicitationId: string, answer: ElicitationAnswer): ElicitationAnswerOutcome;
	}): () => Promise<void>;
	/**
	 * GET /api/chat for a run another instance executes; the reader counts there as one until it
	 * leaves. `cancelOnLeave`: leaving before the run's end asks its owner to cancel it if no reader
	 * is left anywhere.
	 */
	follow(runId: string, lastEventId: number, signal: AbortSignal, options: LiveResponseOptions, cancelOnLeave?: boolean): Promise<Response>;
	/** Whether a reader on another instance than its owner follows the run now (a dead instance's, until its rows time out). */
	followedElsewhere(runId: string): Promise<boolean>;
	/** Asks the owner to cancel the run, and waits until its outcome is recorded (or its owner is gone). */
	cancel(runId: string): Promise<'recorded' | 'owner-gone' | 'no-answer' | 'not-found'>;
	/**
	 * Carries an answer to a question of a run another instance executes to that instance, and
	 * waits for what it came to there. A run that has ended, or whose owner is gone, took its
	 * questions with it: `closed` if its kept events show it asked this one, else `not-found`.
	 * `no-answer`: its owner, holding its lease, took nothing within two leases.
	 */
	answer(runId: string, elicitationId: string, answer: ElicitationAnswer): Promise<ForwardedAnswer>;
	/** The questions the run's kept events show asked and not closed yet, oldest first. */
	openQuestions(runId: string): Promise<PendingElicitation[]>;
	/** A run recovered from a dead owner: its terminal event, kept for its readers. */
	ended(runId: string, event: RunEvent): Promise<void>;
	/**
	 * A run recovered from a dead owner and resumed by `successorRunId` (claimed already): its
	 * terminal event kept naming the successor, so its readers carry on with that run on the same
	 * stream. Answers the id the successor's EventLog starts at, above every id of the run.
	 */
	carriedOn(runId: string, event: RunEvent, successorRunId: string): Promise<number>;
	close(): Promise<void>;
}

/** What an answer sent to one instance came to on the instance that holds its question. */
export type ForwardedAnswer = ElicitationAnswerOutcome | { refused: 'no-answer' };

export interface StorageEngine {
	readonly kind: 'sqlite' | 'postgres';
	/** What the start-up log says it opened (never a password). */
	readonly where: string;
	storage: AppStorage;
	/** Where runs write their checkpoints; a put moves the active branch's head in its own transaction. */
	checkpointer: BaseCheckpointSaver & HandsOverLatest;
	history: CheckpointHistory;
	/** Where several instances share the database: who owns which run (PostgreSQL). Null: one process owns every run. */
	leases: RunLeases | null;
	shared: SharedRuns | null;
	/** The pool of connections runs and requests share, for its metrics (PostgreSQL). Null: an embedded file, no pool. */
	pool: PoolUse | null;
	/** Throws when the database does not answer (readiness). */
	ping(): Promise<void>;
	close(): Promise<void>;
}

/**
 * Ids a run may use before the run that carries on its stream starts. A run publishes far fewer
 * events (one per token), so the resumed run's ids lie above every id a reader can hold from the
 * run before, including ids its owner sent and died before keeping anywhere.
 */
export const RUN_ID_SPAN = 2 ** 32;
