// A conversation's rows as the transfer contract (transfer-storage.ts TransferStorage) carries them:
// the bundle's own shapes (protocol/bundle.ts), timestamps as the ISO text the app writes.

import type { BundleApproval, BundleBranch, BundleConversation, BundleJournalEntry, BundleRun } from '../../protocol';
import type { RunStatus } from '../../protocol';

export type ConversationRecords = {
	conversation: BundleConversation;
	branch: BundleBranch | null;
	/** Oldest first; read back, one may be `running` (a bundle never holds one). */
	runs: (Omit<BundleRun, 'status'> & { status: RunStatus })[];
	journal: BundleJournalEntry[];
	approvals: BundleApproval[];
};

/** The columns each table carries, the same on both engines; timestamps among them listed in TIMESTAMP_COLUMNS. */
export const TRANSFER_COLUMNS = {
	conversations: ['id', 'title', 'created_at', 'updated_at', 'message_count', 'model'],
	conversation_branches: ['conversation_id', 'head', 'switched_after_run'],
	runs: ['id', 'conversation_id', 'status', 'trigger', 'input', 'error_code', 'error_message', 'started_at', 'finished_at'],
	tool_calls: [
		'thread_id', 'tool_call_id', 'run_id', 'step', 'tool', 'args_hash', 'call_hash', 'idempotency_key', 'message_id',
		'attempts', 'outcome', 'result', 'intent_at', 'outcome_at'
	],
	tool_approvals: [
		'thread_id', 'tool_call_id', 'attempt', 'run_id', 'tool', 'args', 'reason_kind', 'reason', 'requested_at', 'expires_at',
		'decision', 'decided_args', 'decision_reason', 'decided_at'
	]
} as const;
export type TransferTable = keyof typeof TRANSFER_COLUMNS;

export const TIMESTAMP_COLUMNS: ReadonlySet<string> = new Set([
	'created_at', 'updated_at', 'started_at', 'finished_at', 'intent_at', 'outcome_at', 'requested_at', 'expires_at', 'decided_at'
]);

type Row = Record<string, unknown>;
export type TransferRows = { [T in TransferTable]: Row[] };

/** Rows read by either engine (TRANSFER_COLUMNS, timestamps as ISO text) as records; undefined without a conversation row. */
export function recordsFromRows(rows: TransferRows): ConversationRecords | undefined {
	const [c] = rows.conversations;
	if (c === undefined) return undefined;
	const [b] = rows.conversation_branches;
	const text = (v: unknown) => v as string;
	const maybe = (v: unknown) => (v ?? null) as string | null;
	return {
		conversation: {
			id: text(c.id),
			title: text(c.title),
			createdAt: text(c.created_at),
			updatedAt: text(c.updated_at),
			messageCount: Number(c.message_count),
			model: maybe(c.model)
		},
		branch: b === undefined ? null : { head: text(b.head), switchedAfterRun: maybe(b.switched_after_run) },
		runs: rows.runs.map((r) => ({
			id: text(r.id),
			status: r.status as RunStatus,
			trigger: r.trigger as BundleRun['trigger'],
			input: maybe(r.input),
			error: r.error_code ? { code: text(r.error_code), message: text(r.error_message ?? '') } : null,
			startedAt: text(r.started_at),
			finishedAt: maybe(r.finished_at)
		})),
		journal: rows.tool_calls.map((j) => ({
			toolCallId: text(j.tool_call_id),
			runId: text(j.run_id),
			step: Number(j.step),
			tool: text(j.tool),
			argsHash: text(j.args_hash),
			callHash: maybe(j.call_hash),
			idempotencyKey: text(j.idempotency_key),
			messageId: maybe(j.message_id),
			attempts: Number(j.attempts),
			outcome: maybe(j.outcome) as BundleJournalEntry['outcome'],
			result: maybe(j.result),
			intentAt: text(j.intent_at),
			outcomeAt: maybe(j.outcome_at)
		})),
		approvals: rows.tool_approvals.map((a) => ({
			toolCallId: text(a.tool_call_id),
			attempt: Number(a.attempt),
			runId: text(a.run_id),
			tool: text(a.tool),
			args: text(a.args),
			reasonKind: a.reason_kind as BundleApproval['reasonKind'],
			reason: text(a.reason),
			requestedAt: text(a.requested_at),
			expiresAt: text(a.expires_at),
			decision: maybe(a.decision) as BundleApproval['decision'],
			decidedArgs: maybe(a.decided_args),
			decisionReason: maybe(a.decision_reason),
			decidedAt: maybe(a.decided_at)
		}))
	};
}

/** The records as rows to insert, table by table, parents first, each row's values in TRANSFER_COLUMNS order. */
export function rowsFromRecords(records: ConversationRecords): { table: TransferTable; rows: unknown[][] }[] {
	const { conversation: c, branch, runs, journal, approvals } = records;
	return [
		{ table: 'conversations', rows: [[c.id, c.title, c.createdAt, c.updatedAt, c.messageCount, c.model]] },
		{ table: 'conversation_branches', rows: branch ? [[c.id, branch.head, branch.switchedAfterRun]] : [] },
		{
			table: 'runs',
			rows: runs.map((r) => [r.id, c.id, r.status, r.trigger, r.input, r.error?.code ?? null, r.error?.message ?? null, r.startedAt, r.finishedAt])
		},
		{
			table: 'tool_calls',
			rows: journal.map((j) => [
				c.id, j.toolCallId, j.runId, j.step, j.tool, j.argsHash, j.callHash, j.idempotencyKey, j.messageId,
				j.attempts, j.outcome, j.result, j.intentAt, j.outcomeAt
			])
		},
		{
			table: 'tool_approvals',
			rows: approvals.map((a) => [
				c.id, a.toolCallId, a.attempt, a.runId, a.tool, a.args, a.reasonKind, a.reason, a.requestedAt, a.expiresAt,
				a.decision, a.decidedArgs, a.decisionReason, a.decidedAt
			])
		}
	];
}
