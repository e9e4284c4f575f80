/**
 * The expected ways the Agent Server protocol's threads, states and runs refuse a request, as
 * values: the edge (http/run-refusal-error.ts) gives each its HTTP status, code and message, as it
 * does the run core's refusals these routes also meet.
 */
export type ProtocolRefusal =
	/**
	 * With `threadId`, worded as the protocol's thread and state routes name it (`Thread … not
	 * found`); without, as its run routes and DELETE answer ("Thread Not Found").
	 */
	| { refused: 'thread-not-found'; threadId?: string }
	/** POST /threads with a taken id and `if_exists` "raise". */
	| { refused: 'thread-exists'; threadId: string }
	| { refused: 'thread-delete-while-running' }
	| { refused: 'checkpoint-not-found'; threadId: string; checkpointId: string }
	/** A run from a checkpoint that the active branch does not pass through. */
	| { refused: 'checkpoint-off-branch'; checkpointId: string }
	/** A run from a checkpoint the active branch shows no message of `type` right after. */
	| { refused: 'checkpoint-without-next'; type: 'human' | 'ai' }
	/** Decisions, or a goto, for a thread no call of which waits. */
	| { refused: 'thread-not-waiting' }
	/** A resume naming another interrupt than the one the thread waits on. */
	| { refused: 'stale-interrupt'; interruptId: string }
	/** HITL decisions answer the waiting calls by position, so their counts must match. */
	| { refused: 'decisions-miscounted'; waiting: number; given: number }
	/** `rollback` found the thread held by a run when it switched the branch back. */
	| { refused: 'rollback-held' };
