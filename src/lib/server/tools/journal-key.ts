/**
 * Pure. Which journal entry is a call's own (issue 21: a call that reused an earlier call's
 * tool_call_id was answered from that call's entry, a delete reported done that was neither asked
 * about nor made). Models and servers reuse ids (`call_0` on every step, or twice in one message), so
 * an entry answers only the call it was made for: same id, step and tool, the same assistant
 * message when both know theirs, and the same arguments as the model wrote them. Any other call is
 * journalled under an id of its own, derived from its message and position, so the same call finds
 * it again on every attempt of its step.
 */
import { createHash } from 'node:crypto';
import type { JournalEntry } from '../storage/journal-records';
import { canonicalArgsHash } from './canonical-args';

export type CallAt = { step: number; messageId: string | null };

export function isEntryOf(entry: JournalEntry, call: { name: string; args: unknown }, at: CallAt): boolean {
	return (
		entry.tool === call.name &&
		entry.step === at.step &&
		(entry.messageId === null || at.messageId === null || entry.messageId === at.messageId) &&
		(entry.callHash ?? entry.argsHash) === canonicalArgsHash(call.args)
	);
}

/** The journal id of the call at `index` of its message when its own id is taken by another call. */
export function derivedCallId(id: string, index: number, at: CallAt): string {
	const where = at.messageId ?? `step ${at.step}`;
	return `${id}~${createHash('sha256').update(JSON.stringify([where, index])).digest('hex').slice(0, 12)}`;
}
