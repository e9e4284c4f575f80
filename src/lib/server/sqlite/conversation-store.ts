import type Database from 'better-sqlite3';
import { titleFromMessage, toSummary, type SummaryRow } from '../storage/conversation-records';
import type { ConversationPage, ConversationSummary, RunStatus } from '../../protocol';

const SUMMARY_SELECT = `
	SELECT c.id, c.title, c.created_at, c.updated_at, c.message_count, c.model,
		r.status, r.error_code, r.error_message
	FROM conversations c
	LEFT JOIN runs r ON r.rowid = (
		SELECT rowid FROM runs WHERE conversation_id = c.id ORDER BY started_at DESC, rowid DESC LIMIT 1
	)`;

/** Conversation rows: the sidebar's view of each thread. Messages live in the checkpoints. */
export class ConversationStore {
	private readonly byId;
	private readonly first;
	private readonly insert;
	private readonly remove;
	private readonly modelById;
	private readonly setModelRow;
	private readonly branchShown;

	constructor(private readonly db: Database.Database) {
		this.byId = db.prepare<[string], SummaryRow>(`${SUMMARY_SELECT} WHERE c.id = ?`);
		this.first = db.prepare<[number], SummaryRow>(`${SUMMARY_SELECT} ORDER BY c.updated_at DESC, c.rowid DESC LIMIT ?`);
		this.insert = db.prepare(
			'INSERT INTO conversations (id, title, created_at, updated_at, model) VALUES (?, ?, ?, ?, ?)'
		);
		this.remove = db.prepare('DELETE FROM conversations WHERE id = ?');
		this.modelById = db.prepare<[string], { model: string | null }>('SELECT model FROM conversations WHERE id = ?');
		this.setModelRow = db.prepare('UPDATE conversations SET model = ? WHERE id = ?');
		this.branchShown = db.prepare(
			'UPDATE conversations SET message_count = ?, updated_at = coalesce(?, updated_at) WHERE id = ?'
		);
	}

	get(id: string): ConversationSummary | undefined {
		const row = this.byId.get(id);
		return row && toSummary(row);
	}

	exists(id: string): boolean {
		return this.byId.get(id) !== undefined;
	}

	/** The `limit` most recently updated, and whether there are more (the list's order, cut short). */
	firstPage(limit: number): ConversationPage {
		const rows = this.first.all(limit + 1);
		return { conversations: rows.slice(0, limit).map(toSummary), hasMore: rows.length > limit };
	}

	/** Inserts the row; callers wrap it in the transaction that also claims the first run. */
	create(id: string, firstMessage: string, now: string, model: string | null = null): void {
		this.insert.run(id, titleFromMessage(firstMessage), now, now, model);
	}

	/** The model the conversation's runs answer with; null: DEFAULT_MODEL. Read at every agent step. */
	model(id: string): string | null {
		return this.modelById.get(id)?.model ?? null;
	}

	/** Chooses the model for this and later runs; only a run that has claimed the conversation does this. */
	setModel(id: string, model: string): void {
		this.setModelRow.run(model, id);
	}

	/** Another branch is active: the row takes its message count and, when known, its last write time. */
	showBranch(id: string, messageCount: number, updatedAt: string | undefined): void {
		this.branchShown.run(messageCount, updatedAt ?? null, id);
	}

	/** Removes the conversation and, by cascade, its runs. */
	delete(id: string): boolean {
		return this.remove.run(id).changes > 0;
	}

	transaction<T>(fn: () => T): T {
		return this.db.transaction(fn)();
	}
}
