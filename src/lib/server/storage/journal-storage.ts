import type { JournalEntry, JournalOutcome } from './journal-records';

/**
 * The tool call journal: an intent when the MCP request goes out (not while it waits its turn), its
 * outcome after the answer, so a resumed step knows which calls finished, which were never sent and
 * which were in flight.
 */
export interface JournalStorage {
	get(threadId: string, toolCallId: string): Promise<JournalEntry | undefined>;
	/**
	 * A repeated intent for a call without an outcome counts an attempt. `durable`: committed so a
	 * power cut cannot undo it, for a call that may not be repeated.
	 */
	recordIntent(entry: Omit<JournalEntry, 'attempts' | 'outcome' | 'result'>, now: string, durable: boolean): Promise<void>;
	/** Calls of the thread to `tool` with these arguments (canonicalArgsHash) that succeeded, oldest first, any branch. */
	succeededWith(threadId: string, tool: string, argsHash: string): Promise<JournalEntry[]>;
	/**
	 * The first outcome recorded for a call is the one kept. `runId`: the run recording it (on a
	 * shared database, only its owner may), which may be a later run than the attempt's, reporting
	 * a call a crash left unknown.
	 */
	recordOutcome(threadId: string, toolCallId: string, runId: string, outcome: JournalOutcome, now: string): Promise<void>;
}
