/** Pure. A person's decisions checked against the calls the conversation waits on. */
import type { Decision, PendingApproval } from '../../protocol';
import type { CheckedDecision } from '../storage/approval-records';

/** Why a submission of decisions is refused: nothing waits, one decision is malformed, or some call is left out. */
export type DecisionRefusal =
	| { refused: 'not-waiting' }
	| { refused: 'decision-invalid'; toolCallId: string; why: 'unknown-call' | 'decided-twice' | 'edit-without-args' | 'args-without-edit' | 'remember-on-deny' }
	| { refused: 'decisions-missing'; missing: string[] };

/**
 * Every waiting call decided at once, each once; `args` only with `edit` (and required there),
 * `remember` only with a decision that runs the call. The first refusal found, otherwise the
 * decisions to record.
 */
export function checkDecisions(pending: readonly PendingApproval[], decisions: readonly Decision[]): CheckedDecision[] | DecisionRefusal {
	if (pending.length === 0) return { refused: 'not-waiting' };
	const waiting = new Map(pending.map((p) => [p.toolCallId, p]));
	const seen = new Set<string>();
	const checked: CheckedDecision[] = [];
	for (const d of decisions) {
		const call = waiting.get(d.toolCallId);
		const why = !call
			? 'unknown-call'
			: seen.has(d.toolCallId)
				? 'decided-twice'
				: d.action === 'edit' && !d.args
					? 'edit-without-args'
					: d.action !== 'edit' && d.args
						? 'args-without-edit'
						: d.action === 'deny' && d.remember
							? 'remember-on-deny'
							: null;
		if (why || !call) return { refused: 'decision-invalid', toolCallId: d.toolCallId, why: why ?? 'unknown-call' };
		seen.add(d.toolCallId);
		checked.push({
			toolCallId: d.toolCallId,
			tool: call.tool,
			action: d.action,
			remember: d.remember === true,
			...(d.args ? { args: d.args } : {}),
			...(d.reason ? { reason: d.reason } : {})
		});
	}
	const missing = pending.filter((p) => !seen.has(p.toolCallId)).map((p) => p.toolCallId);
	return missing.length ? { refused: 'decisions-missing', missing } : checked;
}
