import type Database from 'better-sqlite3';
import { toQueuedMessage, type QueuedRow } from '../storage/queue-records';
import type { QueuedMessage } from '../../protocol';
import type { QueueFull } from '../storage/queue-storage';

/**
 * Messages waiting for a conversation's active run to end, or for room under MAX_CONCURRENT_RUNS
 * (ifBusy "enqueue"), oldest first; an edit carries the message it replaces, a regenerate the
 * answer it replaces (and no text). At most `maxPerConversation` (MAX_QUEUED_MESSAGES) wait on one
 * conversation: past it `add` refuses with QUEUE_FULL, so a careless client cannot stack up an
 * unbounded backlog of runs.
 */
export class MessageQueue {
	private readonly insert;
	private readonly byConversation;
	private readonly count;
	private readonly remove;
	private readonly waiting;
	private readonly total;

	constructor(
		db: Database.Database,
		private readonly maxPerConversation: number
	) {
		this.insert = db.prepare(
			'INSERT INTO queued_messages (id, conversation_id, message, created_at, edit_of, regenerate, model) VALUES (?, ?, ?, ?, ?, ?, ?)'
		);
		this.byConversation = db.prepare<[string], QueuedRow>(
			'SELECT id, message, created_at, edit_of, regenerate, model FROM queued_messages WHERE conversation_id = ? ORDER BY created_at, rowid'
		);
		this.count = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM queued_messages WHERE conversation_id = ?');
		this.remove = db.prepare('DELETE FROM queued_messages WHERE id = ?');
		this.total = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM queued_messages');
		this.waiting = db.prepare<[], { conversation_id: string }>(
			'SELECT conversation_id FROM queued_messages GROUP BY conversation_id ORDER BY MIN(created_at), MIN(rowid)'
		);
	}

	/** `model`: the one it was sent with, chosen when it starts. */
	add(
		conversationId: string,
		id: string,
		message: string,
		now: string,
		queued: { editOf?: string; regenerate?: string; model?: string } = {}
	): 'queued' | QueueFull {
		if (this.count.get(conversationId)!.n >= this.maxPerConversation) return { refused: 'queue-full', maxQueuedMessages: this.maxPerConversation };
		this.insert.run(id, conversationId, message, now, queued.editOf ?? null, queued.regenerate ?? null, queued.model ?? null);
		return 'queued';
	}

	list(conversationId: string): QueuedMessage[] {
		return this.byConversation.all(conversationId).map(toQueuedMessage);
	}

	delete(id: string): void {
		this.remove.run(id);
	}

	/** Conversations with queued messages, the one waiting longest first. */
	conversationsWaiting(): string[] {
		return this.waiting.all().map((r) => r.conversation_id);
	}

	countAll(): number {
		return this.total.get()!.n;
	}
}
