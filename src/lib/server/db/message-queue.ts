import type Database from 'better-sqlite3';
import type { QueuedMessage } from '../../protocol';

/** Messages waiting for a conversation's active run to end (ifBusy "enqueue"), oldest first. */
export class MessageQueue {
	private readonly insert;
	private readonly byConversation;
	private readonly remove;
	private readonly waiting;

	constructor(db: Database.Database) {
		this.insert = db.prepare('INSERT INTO queued_messages (id, conversation_id, message, created_at, model) VALUES (?, ?, ?, ?, ?)');
		this.byConversation = db.prepare<[string], { id: string; message: string; created_at: string; model: string | null }>(
			'SELECT id, message, created_at, model FROM queued_messages WHERE conversation_id = ? ORDER BY created_at, rowid'
		);
		this.remove = db.prepare('DELETE FROM queued_messages WHERE id = ?');
		this.waiting = db.prepare<[], { conversation_id: string }>('SELECT DISTINCT conversation_id FROM queued_messages');
	}

	add(conversationId: string, id: string, message: string, now: string, model?: string): void {
		this.insert.run(id, conversationId, message, now, model ?? null);
	}

	list(conversationId: string): QueuedMessage[] {
		return this.byConversation
			.all(conversationId)
			.map((r) => ({ id: r.id, message: r.message, createdAt: r.created_at, ...(r.model ? { model: r.model } : {}) }));
	}

	delete(id: string): void {
		this.remove.run(id);
	}

	conversationsWaiting(): string[] {
		return this.waiting.all().map((r) => r.conversation_id);
	}
}
