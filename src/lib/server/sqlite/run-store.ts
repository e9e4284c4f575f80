import type Database from 'better-sqlite3';
import { titleFromMessage, UNTITLED } from '../storage/conversation-records';
import { toRecord, type RunOutcome, type RunRow } from '../storage/run-records';
import type { InterruptCause, RunFailureCode, RunRecord, RunStatus, RunTrigger } from '../../protocol';

/** Runs that send a message: their claim is the moment the conversation moves to the top. */
const SENDS_MESSAGE: ReadonlySet<RunTrigger> = new Set(['message', 'edit']);

/**
 * The run ledger. A run is claimed by inserting its `running` row; the partial unique index
 * `one_running_run` makes a second claim on the same conversation fail, whoever tries it.
 */
export class RunStore {
	private readonly insert;
	private readonly touch;
	/** A thread made with no run (POST /threads) takes its title from its first message, as a conversation does. */
	private readonly nameAfter;
	private readonly setModel;
	private readonly finishRow;
	private readonly finishTouch;
	private readonly release;
	private readonly byConversation;
	private readonly newestTwo;
	private readonly running;
	private readonly allRunning;
	private readonly runningCount;
	private readonly waitingCount;
	private readonly byId;

	constructor(private readonly db: Database.Database) {
		this.insert = db.prepare(
			"INSERT INTO runs (id, conversation_id, status, started_at, trigger, input) VALUES (?, ?, 'running', ?, ?, ?)"
		);
		this.touch = db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?');
		this.nameAfter = db.prepare(`UPDATE conversations SET title = ? WHERE id = ? AND message_count = 0 AND title = '${UNTITLED}'`);
		this.setModel = db.prepare('UPDATE conversations SET model = ? WHERE id = ?');
		this.finishRow = db.prepare(
			`UPDATE runs SET status = ?, error_code = ?, error_message = ?, finished_at = ?
			 WHERE id = ? AND status = 'running'`
		);
		this.finishTouch = db.prepare(
			`UPDATE conversations SET updated_at = ?, message_count = ?
			 WHERE id = (SELECT conversation_id FROM runs WHERE id = ?)`
		);
		this.release = db.prepare("DELETE FROM runs WHERE id = ? AND status = 'running'");
		this.byConversation = db.prepare<[string], RunRow>(
			'SELECT * FROM runs WHERE conversation_id = ? ORDER BY started_at DESC, rowid DESC'
		);
		this.newestTwo = db.prepare<[string], { id: string; trigger: RunTrigger }>(
			'SELECT id, trigger FROM runs WHERE conversation_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 2'
		);
		this.running = db.prepare<[string], { id: string }>(
			"SELECT id FROM runs WHERE conversation_id = ? AND status = 'running'"
		);
		this.byId = db.prepare<[string], RunRow & { conversation_id: string }>('SELECT * FROM runs WHERE id = ?');
		this.allRunning = db.prepare<[], { id: string; conversation_id: string }>(
			"SELECT id, conversation_id FROM runs WHERE status = 'running'"
		);
		// Counted on the partial index one_running_run, which holds exactly these rows.
		this.runningCount = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM runs WHERE status = 'running'");
		this.waitingCount = db.prepare<[], { n: number }>(
			`SELECT COUNT(*) AS n FROM conversations c JOIN runs r ON r.rowid = (
				SELECT rowid FROM runs WHERE conversation_id = c.id ORDER BY started_at DESC, rowid DESC LIMIT 1
			) WHERE r.status = 'waiting'`
		);
	}

	/**
	 * Claims the conversation for a new run. Returns false when another run holds it. A message run
	 * (an edit too) also moves the conversation to the top of the list in the same commit, and sets
	 * the model it chose, so a refused claim changes nothing and a run's model cannot change while it
	 * runs; other runs do that only once they are sure to go ahead (`touchConversation`).
	 */
	claim(
		conversationId: string,
		runId: string,
		now: string,
		trigger: RunTrigger,
		input: string | null,
		model?: string
	): boolean {
		try {
			this.db.transaction(() => {
				this.insert.run(runId, conversationId, now, trigger, input);
				if (SENDS_MESSAGE.has(trigger)) this.touch.run(now, conversationId);
				if (trigger === 'message' && input) this.nameAfter.run(titleFromMessage(input), conversationId);
				if (model !== undefined) this.setModel.run(model, conversationId);
			})();
			return true;
		} catch (e) {
			if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
			throw e;
		}
	}

	/** Moves the conversation to the top of the list once its run is sure to go ahead. */
	touchConversation(conversationId: string, now: string): void {
		this.touch.run(now, conversationId);
	}

	/** Undoes a claim that turned out to have nothing to run; a started run is never released. */
	releaseClaim(runId: string): void {
		this.release.run(runId);
	}

	/**
	 * Records the run's outcome and the conversation's message count in one transaction. Only a
	 * `running` row changes, so of two racing outcomes exactly one is kept; returns whether this was it.
	 */
	finish(runId: string, outcome: RunOutcome, now: string): boolean {
		return this.db.transaction(() => {
			const changed = this.finishRow.run(
				outcome.status,
				outcome.error?.code ?? null,
				outcome.error?.message ?? null,
				now,
				runId
			).changes;
			if (changed) this.finishTouch.run(now, outcome.messageCount, runId);
			return changed > 0;
		})();
	}

	get(runId: string): (RunRecord & { conversationId: string }) | undefined {
		const row = this.byId.get(runId);
		return row && { ...toRecord(row), conversationId: row.conversation_id };
	}

	/** Runs that hold a claim, in every process on this database. */
	countRunning(): number {
		return this.runningCount.get()!.n;
	}

	/** Conversations whose latest run waits for a decision. */
	countWaiting(): number {
		return this.waitingCount.get()!.n;
	}

	hasRunning(conversationId: string): boolean {
		return this.running.get(conversationId) !== undefined;
	}

	list(conversationId: string): RunRecord[] {
		return this.byConversation.all(conversationId).map(toRecord);
	}

	/** The conversation's newest two runs, newest first (RunOpening.latestRuns). */
	latest(conversationId: string): { id: string; trigger: RunTrigger }[] {
		return this.newestTwo.all(conversationId);
	}

	/** Runs left `running`: at start, these belonged to a process that died. */
	listRunning(): { id: string; conversationId: string }[] {
		return this.allRunning.all().map((r) => ({ id: r.id, conversationId: r.conversation_id }));
	}
}
