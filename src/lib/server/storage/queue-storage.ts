import type { QueuedMessage, RunTrigger } from '../../protocol';
import type { Claim } from './run-storage';

/** MAX_QUEUED_MESSAGES already wait on the conversation. */
export type QueueFull = { refused: 'queue-full'; maxQueuedMessages: number };

/**
 * Messages waiting for a conversation's active run to end, or for room under maxConcurrentRuns
 * (ifBusy "enqueue"), oldest first.
 */
export interface QueueStorage {
	/**
	 * An edit carries the message it replaces, a regenerate the answer it replaces (and no text);
	 * `model`: the one it was sent with, chosen when it starts. Refused, changing nothing, when
	 * maxQueuedMessages already wait on the conversation.
	 */
	add(
		conversationId: string,
		id: string,
		message: string,
		now: string,
		queued?: { editOf?: string; regenerate?: string; model?: string }
	): Promise<'queued' | QueueFull>;
	list(conversationId: string): Promise<QueuedMessage[]>;
	/** Drops a queued message that can no longer start (its branch point is gone). */
	delete(id: string): Promise<void>;
	/** Conversations with queued messages, the one waiting longest first. */
	conversationsWaiting(): Promise<string[]>;
	/** Messages queued on every conversation (sophos_queued_messages). */
	countAll(): Promise<number>;
	/**
	 * Claims a run for the queued message `queuedId` as RunStorage.claim does, and takes the message
	 * off the queue when the claim succeeds, in the same transaction.
	 */
	claimQueued(
		conversationId: string,
		queuedId: string,
		run: { runId: string; now: string; trigger: RunTrigger; input: string | null; branchFrom?: string; model?: string }
	): Promise<Claim>;
}
