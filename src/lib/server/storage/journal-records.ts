// The tool-call journal as the storage contract speaks of it: an entry, its outcome, and the row every engine selects.

export type JournalEntry = {
	threadId: string;
	toolCallId: string;
	runId: string;
	step: number;
	tool: string;
	/** canonicalArgsHash of the arguments it was made with (a person's edit included). */
	argsHash: string;
	/**
	 * canonicalArgsHash of the arguments as the model wrote them: with the id, step and tool, what
	 * tells the call an entry was made for from a later one that reuses its id. Null on entries from
	 * before it was kept.
	 */
	callHash: string | null;
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
	call_hash: string | null;
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
		callHash: row.call_hash,
		idempotencyKey: row.idempotency_key,
		messageId: row.message_id,
		attempts: row.attempts,
		outcome: row.outcome,
		result: row.result
	};
}

export type JournalOutcome = { outcome: 'success' | 'error' | 'cancelled'; result: string };
