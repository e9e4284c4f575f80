import type Database from 'better-sqlite3';
import type { ApprovalReason, Decision, PendingApproval } from '../../protocol';
import { commitDurably } from '../db/durable-commit';

/** What a person decided on a call, as the tools step acts on it. */
export type RecordedDecision = {
	action: Decision['action'];
	/** With `edit`: the arguments the call runs with. */
	args?: Record<string, unknown>;
	reason?: string;
};

export type ApprovalRequest = {
	toolCallId: string;
	/** The call's attempts so far (ToolJournal): a decision answers one attempt's question. */
	attempt: number;
	tool: string;
	args: Record<string, unknown>;
	reason: ApprovalReason;
};

type Row = {
	tool_call_id: string;
	tool: string;
	args: string;
	reason_kind: ApprovalReason['kind'];
	reason: string;
	requested_at: string;
	expires_at: string;
	decision: Decision['action'] | null;
	decided_args: string | null;
	decision_reason: string | null;
};

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
		this.undecided = db.prepare<[string], Row>(
			`SELECT * FROM tool_approvals WHERE thread_id = ? AND decision IS NULL ORDER BY requested_at, rowid`
		);
		this.byCall = db.prepare<[string, string, number], Row>(
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
		return this.undecided.all(threadId).map((row) => ({
			toolCallId: row.tool_call_id,
			tool: row.tool,
			args: JSON.parse(row.args) as Record<string, unknown>,
			reason: { kind: row.reason_kind, message: row.reason },
			requestedAt: row.requested_at,
			expiresAt: row.expires_at
		}));
	}

	/** The decision on the question asked before attempt `attempt` + 1 of the call, if made. */
	decision(threadId: string, toolCallId: string, attempt: number): RecordedDecision | undefined {
		const row = this.byCall.get(threadId, toolCallId, attempt);
		if (!row?.decision) return undefined;
		return {
			action: row.decision,
			...(row.decided_args ? { args: JSON.parse(row.decided_args) as Record<string, unknown> } : {}),
			...(row.decision_reason ? { reason: row.decision_reason } : {})
		};
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
