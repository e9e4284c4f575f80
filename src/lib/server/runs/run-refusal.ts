import type { DecisionRefusal } from '../approvals/decision-check';
import type { QueueFull } from '../storage/queue-storage';

/**
 * The expected ways the run core refuses a request, as values its caller must handle: the edge
 * (http/run-refusal-error.ts) gives each its HTTP status, code and message, and nothing inside
 * throws them.
 */
export type RunRefusal =
	| ConversationNotFound
	| { refused: 'run-not-found' }
	/** The conversation has a run, and the request did not ask to queue or interrupt. */
	| { refused: 'busy' }
	/** MAX_CONCURRENT_RUNS are running. */
	| { refused: 'full'; maxConcurrentRuns: number }
	| { refused: 'shutting-down' }
	/** A resume of a thread whose last run finished. */
	| { refused: 'nothing-to-resume' }
	/** A resume of a thread that waits for a person's decisions. */
	| { refused: 'approval-required' }
	| QueueFull
	| DecisionRefusal
	| ForkRefusal;

export type ConversationNotFound = { refused: 'conversation-not-found' };

/** Why no branch can start before a message (runs/fork-point.ts). */
export type ForkRefusal =
	| { refused: 'message-not-on-branch' }
	| { refused: 'wrong-role'; target: 'edit' | 'regenerate' }
	/** CHECKPOINT_RETENTION pruned the checkpoint before the message. */
	| { refused: 'branch-point-pruned' }
	| { refused: 'not-a-model-step' };

export const isRefusal = <T extends object, R extends { refused: string } = RunRefusal>(result: T | R): result is R => 'refused' in result;
