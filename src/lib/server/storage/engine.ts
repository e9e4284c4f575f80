// The one place the database engine is chosen: DATABASE_URL=postgres://… puts every table in
// PostgreSQL, shared by any number of processes; unset, the embedded SQLite file. The runtime sees
// only what this returns.

import { randomUUID } from 'node:crypto';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { AppStorage, AppStorageLimits, RunLeases } from './app-storage';
import type { CheckpointHistory } from './checkpoint-history';
import { openPostgresEngine } from './postgres-engine';
import { openSqliteEngine } from './sqlite-engine';

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
	/** Throws when the database does not answer (readiness). */
	ping(): Promise<void>;
	close(): Promise<void>;
}

export function openStorageEngine(
	settings: { DATABASE_URL?: string; RUN_LEASE_MS: number; SOPHOS_INSTANCE_ID?: string; paths: { database: string } },
	limits: AppStorageLimits,
	log: (line: string, error?: unknown) => void
): Promise<StorageEngine> {
	if (settings.DATABASE_URL !== undefined) return openPostgresEngine(
			settings.DATABASE_URL,
			limits,
			{ instanceId: settings.SOPHOS_INSTANCE_ID ?? randomUUID(), leaseMs: settings.RUN_LEASE_MS },
			log
		);
	return Promise.resolve(openSqliteEngine(settings.paths.database, limits, log));
}
