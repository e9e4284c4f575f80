/**
 * Pure. What the tools step does with each call, given what the journal knows of it, what a person
 * decided, and what the policy and the exfiltration guard say. A call that has been attempted
 * already passed this gate once: it is never asked about again, only finished (tools/repeat-policy.ts).
 */
import type { ApprovalReason } from '../../protocol';
import { decideToolCall, type UnfinishedCallPolicy } from '../tools/repeat-policy';
import type { RecordedDecision } from '../storage/approval-records';
import type { JournalOutcome } from '../storage/journal-records';

export type CallPlan =
	| { kind: 'call'; args: Record<string, unknown> }
	| { kind: 'reuse'; recorded: JournalOutcome }
	| { kind: 'report-uncertain'; reason?: string }
	| { kind: 'denied'; reason?: string }
	| { kind: 'ask'; reason: ApprovalReason; attempt: number };

export type GateInput = {
	args: Record<string, unknown>;
	/** The journal's row for the call: none before its first attempt. */
	entry: { outcome: JournalOutcome['outcome'] | null; result: string | null; attempts: number } | undefined;
	/** The person's answer to the question asked before the call's next attempt, if any. */
	decision: RecordedDecision | undefined;
	/** Undefined: the tool is not offered (unknown, filtered or denied); the call fails as unavailable. */
	tool: { name: string; approval: 'auto' | 'ask'; openWorld: boolean; readOnly: boolean; safeToRepeat: boolean } | undefined;
	/** "Always allow" was given for this tool. */
	allowed: boolean;
	unfinished: UnfinishedCallPolicy;
	/** URLs in the arguments that the thread never held (exfiltration-guard.ts); [] with the guard off. */
	composed: readonly string[];
	/** Tools whose results in the context are private data, and untrusted content (approvals/run-context.ts). */
	context: { privateFrom: readonly string[]; untrustedFrom: readonly string[] };
	/** EXFILTRATION_GUARD: also holds back every open-world call once the context holds both. */
	guard: boolean;
	/** UNTRUSTED_CONTENT_WRITES: whether a write after untrusted content entered the context asks. */
	untrustedWrites: 'ask' | 'auto';
};

export function planCall(input: GateInput): CallPlan {
	const { entry, decision, tool } = input;
	if (entry?.outcome) return { kind: 'reuse', recorded: { outcome: entry.outcome, result: entry.result ?? '' } };
	if (decision) {
		if (decision.action === 'deny') {
			return entry ? { kind: 'report-uncertain', reason: decision.reason } : { kind: 'denied', reason: decision.reason };
		}
		return { kind: 'call', args: decision.args ?? input.args };
	}
	if (entry) {
		const repeat = decideToolCall(entry, tool?.safeToRepeat ?? false, input.unfinished);
		if (repeat.action === 'call') return { kind: 'call', args: input.args };
		if (repeat.action === 'ask-uncertain') {
			return {
				kind: 'ask',
				attempt: entry.attempts,
				reason: {
					kind: 'uncertain',
					message: 'A crash left unknown whether this call took effect. Approve runs it again; deny tells the model it may have happened.'
				}
			};
		}
		return { kind: 'report-uncertain' };
	}
	if (!tool) return { kind: 'call', args: input.args };
	if (tool.openWorld && input.composed.length) {
		return {
			kind: 'ask',
			attempt: 0,
			reason: {
				kind: 'composed-url',
				message: `The model wrote ${input.composed.join(', ')} itself: it is in none of your messages nor any earlier result, so it could carry data out.`
			}
		};
	}
	const { privateFrom, untrustedFrom } = input.context;
	// Which links a run follows can spell out what it read, and no URL check sees that channel.
	if (input.guard && tool.openWorld && privateFrom.length && untrustedFrom.length) {
		return {
			kind: 'ask',
			attempt: 0,
			reason: {
				kind: 'composed-url',
				message:
					`This conversation holds private data (from ${privateFrom.join(', ')}) and content from outside ` +
					`(from ${untrustedFrom.join(', ')}): which address the model asks for could carry that data out.`
			}
		};
	}
	if (input.untrustedWrites === 'ask' && !tool.readOnly && untrustedFrom.length) {
		return {
			kind: 'ask',
			attempt: 0,
			reason: {
				kind: 'policy',
				message: `${tool.name} may change something, and content from outside (from ${untrustedFrom.join(', ')}) may have asked for it.`
			}
		};
	}
	if (tool.approval === 'ask' && !input.allowed) {
		return { kind: 'ask', attempt: 0, reason: { kind: 'policy', message: `${tool.name} may change something outside this conversation.` } };
	}
	return { kind: 'call', args: input.args };
}

export function deniedMessage(reason: string | undefined): string {
	return `Not run: the person denied this call${reason ? ` (${reason})` : ''}.`;
}
