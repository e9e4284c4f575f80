import type Database from 'better-sqlite3';

/**
 * The active branch of each conversation whose thread has branched: the checkpoint its messages
 * are read from and its next run starts at. A conversation without a row has never branched, and
 * its head is simply the thread's latest checkpoint, as before branches existed.
 */
export class BranchStore {
	private readonly byConversation;
	private readonly upsertHead;
	private readonly upsertSwitch;
	private readonly advanceHead;

	constructor(db: Database.Database) {
		this.byConversation = db.prepare<[string], { head: string; switched_after_run: string | null }>(
			'SELECT head, switched_after_run FROM conversation_branches WHERE conversation_id = ?'
		);
		this.upsertHead = db.prepare(
			`INSERT INTO conversation_branches (conversation_id, head) VALUES (?, ?)
			 ON CONFLICT (conversation_id) DO UPDATE SET head = excluded.head`
		);
		this.upsertSwitch = db.prepare(
			`INSERT INTO conversation_branches (conversation_id, head, switched_after_run) VALUES (?, ?, ?)
			 ON CONFLICT (conversation_id) DO UPDATE SET head = excluded.head, switched_after_run = excluded.switched_after_run`
		);
		this.advanceHead = db.prepare('UPDATE conversation_branches SET head = ? WHERE conversation_id = ? AND head = ?');
	}

	/** The active branch's head checkpoint; undefined: the thread's latest checkpoint. */
	head(conversationId: string): string | undefined {
		return this.byConversation.get(conversationId)?.head;
	}

	/** The newest run when the branch was last switched, if it ever was (see readThreadWork). */
	switchedAfterRun(conversationId: string): string | null {
		return this.byConversation.get(conversationId)?.switched_after_run ?? null;
	}

	/** Where a run that starts a branch begins: its claim and this commit together. */
	startBranchAt(conversationId: string, checkpointId: string): void {
		this.upsertHead.run(conversationId, checkpointId);
	}

	/** A switch to another branch; `afterRun` is the conversation's newest run at that moment. */
	switchTo(conversationId: string, checkpointId: string, afterRun: string | null): void {
		this.upsertSwitch.run(conversationId, checkpointId, afterRun);
	}

	/**
	 * A checkpoint was stored with `parentId` as its parent: if that was the head, the head moves to
	 * it. The saver calls this inside the checkpoint's own transaction, so the head never lags.
	 */
	advance(conversationId: string, parentId: string, checkpointId: string): void {
		this.advanceHead.run(checkpointId, conversationId, parentId);
	}
}
