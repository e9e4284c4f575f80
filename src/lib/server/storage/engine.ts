// The one place the database engine is chosen: DATABASE_URL=postgres://… puts every table in
// PostgreSQL, shared by any number of processes; unset, the embedded SQLite file. The runtime sees
// only what this returns.

import { randomUUID } from 'node:crypto';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { RunEvent } from '../../protocol';
import type { EventLog } from '../stream/event-log';
import type { LiveResponseOptions } from '../stream/sse-response';
import type { AppStorage, AppStorageLimits, RunLeases } from './app-storage';
import type { CheckpointHistory } from './checkpoint-history';
import { openPostgresEngine } from './postgres-engine';
import { openSqliteEngine } from './sqlite-engine';

/**
 * Where several instances serve one run (PostgreSQL): its events kept durably in batches and
 * announced, so a reader on any instance follows it with Last-Event-ID replay, and a cancel sent to
 * any instance reaches the instance that executes it.
 */
export interface SharedRuns {
	/** Before the run publishes: its events are kept, and a cancel from any instance calls `abort`. Returns its detach, for its end. */
	attach(run: { id: string; log: EventLog; abort(): void }): () => Promise<void>;
	/** GET /api/chat for a run another instance executes. */
	follow(runId: string, lastEventId: number, signal: AbortSignal, options: LiveResponseOptions): Promise<Response>;
	/** Asks the owner to cancel the run, and waits until its outcome is recorded (or its owner is gone). */
	cancel(runId: string): Promise<'recorded' | 'owner-gone' | 'no-answer' | 'not-found'>;
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

export interface StorageEngine {
	readonly kind: 'sqlite' | 'postgres';
	/** What the start-up log says it opened (never a password). */
	readonly where: string;
	storage: AppStorage;
	/** Where runs write their checkpoints; a put moves the active branch's head in its own transaction. */
	checkpointer: BaseCheckpointSaver;
	history: CheckpointHistory;
	/** Where several instances share the database: who owns which run (PostgreSQL). Null: one process owns every run. */
	leases: RunLeases | null;
	shared: SharedRuns | null;
	/** Throws when the database does not answer (readiness). */
	ping(): Promise<void>;
	close(): Promise<void>;
}

export function openStorageEngine(
	settings: { DATABASE_URL?: string; RUN_LEASE_MS: number; RUN_EVENTS_KEEP_MS: number; SOPHOS_INSTANCE_ID?: string; paths: { database: string } },
	limits: AppStorageLimits,
	log: (line: string, error?: unknown) => void
): Promise<StorageEngine> {
	if (settings.DATABASE_URL !== undefined) return openPostgresEngine(
			settings.DATABASE_URL,
			limits,
			{ instanceId: settings.SOPHOS_INSTANCE_ID ?? randomUUID(), leaseMs: settings.RUN_LEASE_MS },
			settings.RUN_EVENTS_KEEP_MS,
			log
		);
	return Promise.resolve(openSqliteEngine(settings.paths.database, limits, log));
}
