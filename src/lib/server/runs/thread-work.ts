/**
 * Pure. What is left to do on a thread, from its latest checkpoint and the last run that ran on it:
 * the one answer recovery, resume, auto-resume, retention and the conversation detail all use.
 */
import type { UserInput } from './active-run';

/**
 * - `finished`: nothing to resume; the thread's checkpoints may be pruned.
 * - `unfinished`: a resume has work: the steps the checkpoint holds pending, and/or the user
 *   message of the last run, which a crash kept from reaching the thread (its run row was
 *   committed, its input checkpoint was not).
 * - `waiting`: a tools step paused for a person; only their decisions (or a new message, or the
 *   approval timeout) move it on. Never resumed, never pruned.
 */
export type ThreadWork =
	| { kind: 'finished' }
	| { kind: 'unfinished'; pending: string[]; lostInput: UserInput | null }
	| { kind: 'waiting'; calls: number };

export type ThreadSnapshot = {
	/** Ids of the thread's messages; a user message's id is the id of the run it was sent with. */
	messageIds: readonly string[];
	/** The steps a resume would run or complete (ThreadReader.state). */
	pending: readonly string[];
	/** Calls of the thread that wait for a person's decision (ApprovalJournal.pending). */
	awaitingDecision: number;
};

/** The last run that ran on the thread: its id and, for a message run, its user message. */
export type LastRun = { id: string; input: string | null };

export function threadWork(thread: ThreadSnapshot, lastRun: LastRun | undefined): ThreadWork {
	const lost = lastRun?.input != null && !thread.messageIds.includes(lastRun.id);
	const lostInput = lost ? { id: lastRun.id, message: lastRun.input! } : null;
	// A lost message goes first: sending it again closes the calls that wait, as any new message does.
	if (!lostInput && thread.awaitingDecision > 0) return { kind: 'waiting', calls: thread.awaitingDecision };
	if (thread.pending.length === 0 && !lostInput) return { kind: 'finished' };
	return { kind: 'unfinished', pending: [...thread.pending], lostInput };
}

/** The steps a resume runs: a lost message goes to the model first, whatever else is pending. */
export function stepsToResume(work: ThreadWork): string[] {
	if (work.kind !== 'unfinished') return [];
	return work.lostInput ? ['agent'] : work.pending;
}
