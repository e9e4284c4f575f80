// The shape of a thread's checkpoint tree, read without decoding any checkpoint: which checkpoint
// follows which. A thread that was never forked is one chain; each edit or regenerate adds a branch.

import type Database from 'better-sqlite3';

/** A checkpoint of the thread's root namespace and the one it was written after (null: a root). */
export interface LineageEntry {
	id: string;
	parent: string | null;
}

/** Every checkpoint of the thread's root namespace, oldest first (checkpoint ids sort by time). */
export function checkpointLineage(db: Database.Database, threadId: string): LineageEntry[] {
	return db
		.prepare(
			`SELECT checkpoint_id AS id, parent_checkpoint_id AS parent FROM lg_checkpoints
			 WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id`
		)
		.all(threadId) as LineageEntry[];
}

/** The thread's newest checkpoint in the root namespace: the one LangGraph loads without an id. */
export function latestCheckpointId(db: Database.Database, threadId: string): string | undefined {
	return db
		.prepare(
			`SELECT checkpoint_id FROM lg_checkpoints WHERE thread_id = ? AND checkpoint_ns = ''
			 ORDER BY checkpoint_id DESC LIMIT 1`
		)
		.pluck()
		.get(threadId) as string | undefined;
}
