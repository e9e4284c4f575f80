// The tool-call journal as the storage contract speaks of it: an entry, its outcome, and the row every engine selects.

export type JournalEntry = {
	threadId: string;
	toolCallId: string;
	runId: string;
	step: number;
	tool: string;
	/** canonicalArgsHash of the arguments. */
	argsHash: string;
	idempotencyKey: string;
	/** The assistant message that made the call: it names the branch the call was made in. */
	messageId: string | null;
	attempts: number;
	outcome: JournalOutcome['outcome'] | null;
	result: string | null;
};

/** A journal row as every engine selects it. */
export type JournalRow = {
	thread_id: string;
	tool_call_id: string;
	run_id: string;
	step: number;
	tool: string;
	args_hash: string;
	idempotency_key: string;
	message_id: string | null;
	attempts: number;
	outcome: JournalOutcome['outcome'] | null;
	result: string | null;
};

export function toEntry(row: JournalRow): JournalEntry {
	return {
		threadId: row.thread_id,
		toolCallId: row.tool_call_id,
		runId: row.run_id,
		step: row.step,
		tool: row.tool,
		argsHash: row.args_hash,
		idempotencyKey: row.idempotency_key,
		messageId: row.message_id,
		attempts: row.attempts,
		outcome: row.outcome,
		result: row.result
	};
}

export type JournalOutcome = { outcome: 'success' | 'error' | 'cancelled'; result: string };
