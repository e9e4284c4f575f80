// A run reads its thread's latest checkpoint as it opens (it closes calls a run before left open),
// and LangGraph reads the same checkpoint again as the run's graph starts: on PostgreSQL a round
// trip on the way to the run's first step, on either engine a second decoding of the whole thread
// (issue 26). The run hands its read over; the saver answers the graph's read with it.

import type { RunnableConfig } from '@langchain/core/runnables';
import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';

/** What the savers offer a run about to start (both engines' savers implement it). */
export interface HandsOverLatest {
	/**
	 * `tuple` (undefined: the thread has no checkpoint) answers the next read of the thread's latest
	 * checkpoint, unless a write to the thread comes first. Returns a withdrawal, for a run whose
	 * graph did not read it (one that stopped before its first step).
	 */
	handOver(threadId: string, tuple: CheckpointTuple | undefined): () => void;
}

/**
 * The tuples handed over, one per thread. Each answers one read only, so the saver's other readers
 * (another request's state read, another instance's writes seen after it) read the database as
 * before; and only while the saver has written nothing to its thread, so it is never older than
 * what this process stored.
 */
export class HandedOver implements HandsOverLatest {
	private readonly tuples = new Map<string, { tuple: CheckpointTuple | undefined }>();

	handOver(threadId: string, tuple: CheckpointTuple | undefined): () => void {
		const handed = { tuple };
		this.tuples.set(threadId, handed);
		return () => {
			if (this.tuples.get(threadId) === handed) this.tuples.delete(threadId);
		};
	}

	/** The tuple handed over for a read of `config`, taken: only a read of a thread's latest checkpoint in the root namespace. */
	take(config: RunnableConfig): { tuple: CheckpointTuple | undefined } | undefined {
		const configurable = config.configurable;
		const threadId = configurable?.thread_id as string | undefined;
		if (threadId === undefined || configurable?.checkpoint_id || ((configurable?.checkpoint_ns as string | undefined) ?? '') !== '') return undefined;
		const handed = this.tuples.get(threadId);
		this.tuples.delete(threadId);
		return handed;
	}

	/** A write to the thread: what was handed over no longer is its latest. */
	drop(threadId: string): void {
		this.tuples.delete(threadId);
	}
}
