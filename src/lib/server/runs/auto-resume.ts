import type { RunTrigger } from '../db/run-store';

/** Pure: whether an interrupted thread is resumed at start (AUTO_RESUME=true). */

export type PendingCall = { recorded: boolean; safeToRepeat: boolean };

/**
 * Only a pending step that is safe to repeat: a model call (no side effects), or tool calls each of
 * which either has a recorded outcome or may be repeated. `recentTriggers` are the thread's runs,
 * newest first: auto-resumes in a row beyond `max` mean the thread keeps dying, so it waits for a person.
 */
export function shouldAutoResume(input: {
	pending: string[];
	openCalls: PendingCall[];
	recentTriggers: RunTrigger[];
	max: number;
}): boolean {
	if (input.pending.length === 0) return false;
	const inARow = input.recentTriggers.findIndex((t) => t !== 'auto-resume');
	if ((inARow === -1 ? input.recentTriggers.length : inARow) >= input.max) return false;
	if (input.pending.every((n) => n === 'agent')) return true;
	return input.pending.every((n) => n === 'agent' || n === 'tools') && input.openCalls.every((c) => c.recorded || c.safeToRepeat);
}
