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
 */
export type ThreadWork = { kind: 'finished' } | { kind: 'unfinished'; pending: string[]; lostInput: UserInput | null };

export type ThreadSnapshot = {
	/** Ids of the thread's messages; a user message's id is the id of the run it was sent with. */
	messageIds: readonly string[];
	/** The steps a resume would run or complete (ThreadReader.state). */
	pending: readonly string[];
};

/** The last run that ran on the thread: its id and, for a message run, its user message. */
export type LastRun = { id: string; input: string | null };

export function threadWork(thread: ThreadSnapshot, lastRun: LastRun | undefined): ThreadWork {
	const lost = lastRun?.input != null && !thread.messageIds.includes(lastRun.id);
	const lostInput = lost ? { id: lastRun.id, message: lastRun.input! } : null;
	if (thread.pending.length === 0 && !lostInput) return { kind: 'finished' };
	return { kind: 'unfinished', pending: [...thread.pending], lostInput };
}

/** The steps a resume runs: a lost message goes to the model first, whatever else is pending. */
export function stepsToResume(work: ThreadWork): string[] {
	if (work.kind === 'finished') return [];
	return work.lostInput ? ['agent'] : work.pending;
}
