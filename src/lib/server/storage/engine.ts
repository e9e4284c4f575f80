// The one place the database engine is chosen: DATABASE_URL=postgres://… puts every table in
// PostgreSQL, shared by any number of processes; unset, the embedded SQLite file. The runtime sees
// only what this returns.

import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { CheckpointLineage } from '../branches/branch-reader';
import type { AppStorage } from './app-storage';

export interface StorageEngine {
	readonly kind: 'sqlite' | 'postgres';
	storage: AppStorage;
	/** Where runs write their checkpoints; a put moves the active branch's head in its own transaction. */
	checkpointer: BaseCheckpointSaver;
	history: CheckpointLineage & {
		/** CHECKPOINT_RETENTION=latest:N: every branch keeps its newest `keepLast`, `heads` ending branches too. */
		prune(threadId: string, keepLast: number, heads: readonly string[]): Promise<unknown>;
	};
	/** Throws when the database does not answer (readiness). */
	ping(): Promise<void>;
	close(): Promise<void>;
}
