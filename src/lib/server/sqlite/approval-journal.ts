import type Database from 'better-sqlite3';
import { toDecision, toPending, type ApprovalRequest, type ApprovalRow, type RecordedDecision } from '../storage/approval-records';
import type { ApprovalReason, Decision, PendingApproval } from '../../protocol';
import { commitDurably } from './durable-commit';

/**
 * The approval half of the tool-call journal: a request is written when a tools step pauses on a
 * call, and the person's decision on it before any run acts on it. A decided call is never asked
 * about again, and the tools step reads the decision from here, not from the graph's resume value,
 * so a crash between deciding and acting loses nothing.
 */
export class ApprovalJournal {
	private readonly insert;
	private readonly undecided;
	private readonly byCall;
	private readonly decide;
	private readonly expired;
	private readonly nextExpiry;

	constructor(private readonly db: Database.Database) {
		// OR IGNORE: a step that is run again (a resume, a crash) asks for the same call once.
		this.insert = db.prepare(
			`INSERT OR IGNORE INTO tool_approvals
			 (thread_id, tool_call_id, attempt, run_id, tool, args, reason_kind, reason, requested_at, expires_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		);
		this.undecided = db.prepare<[string], ApprovalRow>(
			`SELECT * FROM tool_approvals WHERE thread_id = ? AND decision IS NULL ORDER BY requested_at, rowid`
		);
		this.byCall = db.prepare<[string, string, number], ApprovalRow>(
			'SELECT * FROM tool_approvals WHERE thread_id = ? AND tool_call_id = ? AND attempt = ?'
		);
		this.decide = db.prepare(
			`UPDATE tool_approvals SET decision = ?, decided_args = ?, decision_reason = ?, decided_at = ?
			 WHERE thread_id = ? AND tool_call_id = ? AND decision IS NULL`
		);
		this.expired = db.prepare<[string], { thread_id: string }>(
			`SELECT DISTINCT thread_id FROM tool_approvals WHERE decision IS NULL AND expires_at <= ?`
		);
		this.nextExpiry = db.prepare<[], { at: string | null }>(
			`SELECT MIN(expires_at) AS at FROM tool_approvals WHERE decision IS NULL`
		);
	}

	/** Durable: once the stream has said a call waits, a power cut must not make it vanish. */
	request(threadId: string, runId: string, requests: readonly ApprovalRequest[], now: string, expiresAt: string): void {
		commitDurably(this.db, () => {
			for (const r of requests) {
				this.insert.run(threadId, r.toolCallId, r.attempt, runId, r.tool, JSON.stringify(r.args), r.reason.kind, r.reason.message, now, expiresAt);
			}
		});
	}

	/** The calls the thread waits on, in the order they were asked about. */
	pending(threadId: string): PendingApproval[] {
		return this.undecided.all(threadId).map(toPending);
	}

	/** The decision on the question asked before attempt `attempt` + 1 of the call, if made. */
	decision(threadId: string, toolCallId: string, attempt: number): RecordedDecision | undefined {
		const row = this.byCall.get(threadId, toolCallId, attempt);
		return row && toDecision(row);
	}

	/**
	 * Records decisions on undecided calls; a call already decided keeps its first decision. Joins
	 * the caller's transaction, which claims the run that acts on them.
	 */
	record(threadId: string, decisions: readonly (RecordedDecision & { toolCallId: string })[], now: string): void {
		for (const d of decisions) {
			this.decide.run(d.action, d.args ? JSON.stringify(d.args) : null, d.reason ?? null, now, threadId, d.toolCallId);
		}
	}

	/** Denies every call the thread waits on, with one reason (the conversation moved on, a timeout). */
	denyPending(threadId: string, reason: string, now: string): void {
		this.record(threadId, this.pending(threadId).map((p) => ({ toolCallId: p.toolCallId, action: 'deny' as const, reason })), now);
	}

	/** Threads with a call nobody decided by `now`. */
	expiredThreads(now: string): string[] {
		return this.expired.all(now).map((r) => r.thread_id);
	}

	/** When the next undecided call expires, if any waits. */
	nextExpiryAt(): string | null {
		return this.nextExpiry.get()?.at ?? null;
	}
}
