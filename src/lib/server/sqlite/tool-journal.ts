import type Database from 'better-sqlite3';
import { toEntry, type JournalEntry, type JournalRow } from '../storage/journal-records';
import { commitDurably } from './durable-commit';
import type { JournalOutcome } from '../storage/journal-records';

/**
 * The tool call journal: an intent row is committed when the MCP request goes out (after its turn
 * behind the server's other writes, not before) and its outcome after the answer, so after a crash
 * a resumed step knows which calls finished, which were never sent and which were in flight.
 */
export class ToolJournal {
	private readonly byCall;
	private readonly byArgs;
	private readonly intent;
	private readonly outcome;

	constructor(private readonly db: Database.Database) {
		this.byCall = db.prepare<[string, string], JournalRow>('SELECT * FROM tool_calls WHERE thread_id = ? AND tool_call_id = ?');
		this.byArgs = db.prepare<[string, string, string], JournalRow>(
			`SELECT * FROM tool_calls WHERE thread_id = ? AND tool = ? AND args_hash = ? AND outcome = 'success'
			 ORDER BY intent_at, rowid`
		);
		this.intent = db.prepare(
			`INSERT INTO tool_calls (thread_id, tool_call_id, run_id, step, tool, args_hash, call_hash, idempotency_key, message_id, intent_at)
			 VALUES (@threadId, @toolCallId, @runId, @step, @tool, @argsHash, @callHash, @idempotencyKey, @messageId, @now)
			 ON CONFLICT (thread_id, tool_call_id) DO UPDATE SET
				run_id = excluded.run_id, attempts = attempts + 1, intent_at = excluded.intent_at
			 WHERE outcome IS NULL`
		);
		this.outcome = db.prepare(
			`UPDATE tool_calls SET outcome = ?, result = ?, outcome_at = ?
			 WHERE thread_id = ? AND tool_call_id = ? AND outcome IS NULL`
		);
	}

	get(threadId: string, toolCallId: string): JournalEntry | undefined {
		const row = this.byCall.get(threadId, toolCallId);
		return row && toEntry(row);
	}

	/** Calls of the thread to `tool` with these arguments that succeeded, oldest first (any branch). */
	succeededWith(threadId: string, tool: string, argsHash: string): JournalEntry[] {
		return this.byArgs.all(threadId, tool, argsHash).map(toEntry);
	}

	/**
	 * `durable`: fsync'd before the request goes out, for a call that may not be repeated, so that
	 * after a power cut the journal still knows the call may have happened. A call that may be
	 * repeated needs no fsync: had a power cut taken its intent, making it again is allowed anyway.
	 * The outcome never needs one: if it is lost, the call reads as unfinished, as after a crash.
	 */
	recordIntent(entry: Omit<JournalEntry, 'attempts' | 'outcome' | 'result'>, now: string, durable: boolean): void {
		if (durable) commitDurably(this.db, () => this.intent.run({ ...entry, now }));
		else this.intent.run({ ...entry, now });
	}

	/** The first outcome recorded for a call is the one kept. */
	recordOutcome(threadId: string, toolCallId: string, outcome: JournalOutcome, now: string): void {
		this.outcome.run(outcome.outcome, outcome.result, now, threadId, toolCallId);
	}
}
