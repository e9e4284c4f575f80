/** Pure. A person's decisions checked against the calls the conversation waits on. */
import type { Decision, PendingApproval } from '../../protocol';
import { ApiError } from '../errors';
import type { CheckedDecision } from '../storage/approval-records';

/**
 * Every waiting call decided at once, each once; `args` only with `edit` (and required there),
 * `remember` only with a decision that runs the call. Throws the refusal a client can act on.
 */
export function checkDecisions(pending: readonly PendingApproval[], decisions: readonly Decision[]): CheckedDecision[] {
	if (pending.length === 0) throw new ApiError('NOT_WAITING', 'This conversation is not waiting for a decision');
	const waiting = new Map(pending.map((p) => [p.toolCallId, p]));
	const seen = new Set<string>();
	const checked = decisions.map((d): CheckedDecision => {
		const call = waiting.get(d.toolCallId);
		if (!call) throw new ApiError('BAD_REQUEST', `No call waits with the id "${d.toolCallId}"`);
		if (seen.has(d.toolCallId)) throw new ApiError('BAD_REQUEST', `The call "${d.toolCallId}" is decided twice`);
		seen.add(d.toolCallId);
		if (d.action === 'edit' && !d.args) throw new ApiError('BAD_REQUEST', `Editing "${d.toolCallId}" needs its new "args"`);
		if (d.action !== 'edit' && d.args) throw new ApiError('BAD_REQUEST', `"args" goes with "edit" only (call "${d.toolCallId}")`);
		if (d.action === 'deny' && d.remember) throw new ApiError('BAD_REQUEST', `"remember" goes with "approve" or "edit" (call "${d.toolCallId}")`);
		return {
			toolCallId: d.toolCallId,
			tool: call.tool,
			action: d.action,
			remember: d.remember === true,
			...(d.args ? { args: d.args } : {}),
			...(d.reason ? { reason: d.reason } : {})
		};
	});
	const missing = pending.filter((p) => !seen.has(p.toolCallId)).map((p) => p.toolCallId);
	if (missing.length) {
		throw new ApiError('BAD_REQUEST', `Decide every waiting call at once; missing: ${missing.join(', ')}`);
	}
	return checked;
}
