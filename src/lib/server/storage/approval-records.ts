// Approvals as the storage contract speaks of them: a question to journal, a person's decision, and the row every engine selects.

import type { ApprovalReason, Decision, PendingApproval } from '../../protocol';

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

/** An approval row as every engine selects it (timestamps as ISO text). */
export type ApprovalRow = {
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

export function toPending(row: ApprovalRow): PendingApproval {
	return {
		toolCallId: row.tool_call_id,
		tool: row.tool,
		args: JSON.parse(row.args) as Record<string, unknown>,
		reason: { kind: row.reason_kind, message: row.reason },
		requestedAt: row.requested_at,
		expiresAt: row.expires_at
	};
}

/** The row's decision, if one was made. */
export function toDecision(row: ApprovalRow): RecordedDecision | undefined {
	if (!row.decision) return undefined;
	return {
		action: row.decision,
		...(row.decided_args ? { args: JSON.parse(row.decided_args) as Record<string, unknown> } : {}),
		...(row.decision_reason ? { reason: row.decision_reason } : {})
	};
}

export type CheckedDecision = RecordedDecision & { toolCallId: string; tool: string; remember: boolean };
