/** Pure: what a tools step does with a call, given what the journal knows of it. */
import type { JournalOutcome } from '../storage/journal-records';

/** UNFINISHED_TOOL_CALLS: what to do with a call whose earlier attempt has no recorded outcome. */
export type UnfinishedCallPolicy = 'auto' | 'repeat' | 'report' | 'ask';

export type CallDecision =
	| { action: 'call' }
	| { action: 'reuse'; recorded: JournalOutcome }
	| { action: 'report-uncertain' }
	| { action: 'ask-uncertain' };

/**
 * A call with a recorded outcome is never made again. A call with only an intent (the process died
 * while it ran) is made again only if repeating it is safe, as the policy says: `auto` trusts the
 * tool's annotations (readOnlyHint / idempotentHint, or the config's override), `repeat` always
 * calls, `report` never does, and `ask` repeats what is safe and leaves the rest to a person.
 */
export function decideToolCall(
	entry: { outcome: JournalOutcome['outcome'] | null; result: string | null } | undefined,
	safeToRepeat: boolean,
	policy: UnfinishedCallPolicy
): CallDecision {
	if (!entry) return { action: 'call' };
	if (entry.outcome) return { action: 'reuse', recorded: { outcome: entry.outcome, result: entry.result ?? '' } };
	if (mayRepeat(safeToRepeat, policy)) return { action: 'call' };
	return policy === 'ask' ? { action: 'ask-uncertain' } : { action: 'report-uncertain' };
}

/** Whether a call whose earlier attempt has no recorded outcome may be made again. */
export function mayRepeat(safeToRepeat: boolean, policy: UnfinishedCallPolicy): boolean {
	return policy === 'repeat' || ((policy === 'auto' || policy === 'ask') && safeToRepeat);
}

export function uncertainCallMessage(tool: string): string {
	return (
		`The call to ${tool} was interrupted by a crash before its outcome was recorded; it may or may ` +
		'not have taken effect. It was not repeated because repeating it may not be safe. Check before trying again.'
	);
}
