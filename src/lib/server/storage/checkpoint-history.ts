// The checkpoint history contract: what the runtime reads of a thread's checkpoint tree and how
// retention shortens it, without decoding checkpoints and engine-independent. The saver stays
// LangGraph's contract; this is the rest the runtime asks of the checkpoint tables. Implemented
// by sqlite/checkpoint/history.ts and postgres/checkpoint/history.ts; both pass one shared suite
// (test/support/checkpoint-history-suite.ts).

/** A checkpoint of the thread's root namespace and the one it was written after (null: a root). */
export interface LineageEntry {
	id: string;
	parent: string | null;
}

export interface PruneResult {
	deletedCheckpoints: number;
	deletedWrites: number;
	deletedItems: number;
}

export interface CheckpointHistory {
	/** The thread's newest checkpoint in the root namespace (the one LangGraph loads without an id). */
	latestId(threadId: string): Promise<string | undefined>;
	/**
	 * Every stored checkpoint of the thread's root namespace, oldest first (ids sort by time), with
	 * its parent's id; a parent that is not stored is given as named.
	 */
	lineage(threadId: string): Promise<LineageEntry[]>;
	/**
	 * CHECKPOINT_RETENTION=latest:N for one thread, every namespace, in one transaction: each branch
	 * (the chain ending at a tip, or at one of `heads`) keeps its newest `keepLast` checkpoints, and
	 * each kept one still reads whole (values it referenced in a deleted row move into the oldest
	 * kept one, and one whose parent is deleted becomes a root). Pending writes of deleted
	 * checkpoints and log items no kept checkpoint reaches are deleted. Rejects with a RangeError,
	 * changing nothing, for `keepLast` < 1. The caller decides that the thread is finished.
	 */
	prune(threadId: string, keepLast: number, heads: readonly string[]): Promise<PruneResult>;
}
