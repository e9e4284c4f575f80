import type Database from 'better-sqlite3';
import { ApiError } from '../errors';
import type { ConversationStore } from './conversation-store';
import { checkpointAfterDeletion } from './database';
import { commitDurably } from './durable-commit';
import type { RunStore } from './run-store';

/** Removes a thread's checkpoints and writes; the saver's, so its caches forget them too. */
export type ThreadDeleter = { deleteThreadSync(threadId: string): void };

/**
 * Deletes a conversation, its runs, queue, journal and checkpoints, refusing while a run holds it.
 * One durable transaction: a crash cannot leave a deleted conversation's checkpoints behind, a power
 * cut cannot bring deleted messages back, and no run can be claimed between the check and the delete.
 * Then the WAL is checkpointed, so the deleted text is gone from the disk, not only from the tables.
 */
export function deleteConversation(
	parts: {
		db: Database.Database;
		conversations: ConversationStore;
		runs: RunStore;
		saver: ThreadDeleter;
		log: (line: string) => void;
	},
	conversationId: string
): void {
	commitDurably(parts.db, () => {
		if (!parts.conversations.exists(conversationId)) throw new ApiError('NOT_FOUND', 'Conversation Not Found');
		if (parts.runs.hasRunning(conversationId)) {
			throw new ApiError('SESSION_IN_PROGRESS', 'A run is active on this conversation; wait for it to end');
		}
		parts.conversations.delete(conversationId);
		parts.saver.deleteThreadSync(conversationId);
	});
	checkpointAfterDeletion(parts.db, parts.log);
}
