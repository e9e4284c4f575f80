// The shape of a thread's checkpoint tree, read without decoding any checkpoint: which checkpoint
// follows which (layout: migrations/integer-keys.ts). A thread that was never forked is one chain;
// each edit or regenerate adds a branch.

import type Database from 'better-sqlite3';
import { unpackUuid } from '../../checkpoint/packed-uuid.js';
import type { LineageEntry } from '../../storage/checkpoint-history';

/**
 * Every stored checkpoint of the thread's root namespace, oldest first (checkpoint ids sort by
 * time), with its parent's id: one that is not stored (retention pruned it) is given as named.
 */
export function checkpointLineage(db: Database.Database, threadId: string): LineageEntry[] {
	const rows = db
		.prepare(
			`SELECT c.checkpoint_id AS id, p.checkpoint_id AS parent
			 FROM lg_checkpoints c JOIN lg_threads t ON t.id = c.thread LEFT JOIN lg_checkpoints p ON p.id = c.parent
			 WHERE t.thread_id = ? AND t.checkpoint_ns = '' AND c.type IS NOT NULL ORDER BY c.checkpoint_id`
		)
		.all(threadId) as { id: string | Buffer; parent: string | Buffer | null }[];
	return rows.map(({ id, parent }) => ({ id: unpackUuid(id), parent: parent === null ? null : unpackUuid(parent) }));
}

/** The thread's newest checkpoint in the root namespace: the one LangGraph loads without an id. */
export function latestCheckpointId(db: Database.Database, threadId: string): string | undefined {
	const id = db
		.prepare(
			`SELECT c.checkpoint_id FROM lg_checkpoints c JOIN lg_threads t ON t.id = c.thread
			 WHERE t.thread_id = ? AND t.checkpoint_ns = '' AND c.type IS NOT NULL ORDER BY c.checkpoint_id DESC LIMIT 1`
		)
		.pluck()
		.get(threadId) as string | Buffer | undefined;
	return id === undefined ? undefined : unpackUuid(id);
}
