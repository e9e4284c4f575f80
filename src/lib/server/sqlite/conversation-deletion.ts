import type Database from 'better-sqlite3';
import type { ConversationDeletion } from '../storage/conversation-storage';
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
): ConversationDeletion {
	const deletion = commitDurably(parts.db, (): ConversationDeletion => {
		if (!parts.conversations.exists(conversationId)) return 'not-found';
		if (parts.runs.hasRunning(conversationId)) return 'running';
		parts.conversations.delete(conversationId);
		parts.saver.deleteThreadSync(conversationId);
		return 'deleted';
	});
	if (deletion === 'deleted') checkpointAfterDeletion(parts.db, parts.log);
	return deletion;
}
