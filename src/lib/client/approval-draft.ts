/**
 * Pure. What a person has chosen on the approval card, call by call, and the decisions that makes.
 * Edited arguments are checked here, before anything is sent, so a typo is reported beside its
 * call at once and the server is asked nothing until every waiting call has a valid decision: the
 * server takes the decisions of a step all at once (POST /api/chat `decisions`).
 */
import type { Decision, PendingApproval } from '../protocol';

/** `always` is approve and remember ("Always allow this tool"). */
export type Choice = 'approve' | 'always' | 'deny' | 'edit';

export type ApprovalDraft = { choice: Choice | null; reason: string; argsText: string };

/** The longest deny reason the server keeps (DecisionSchema). */
export const MAX_REASON_CHARS = 2_000;

export const UNDECIDED_MESSAGE = 'Choose Approve, Deny, Edit arguments or Always allow for this call.';

/** Arguments as the card shows and edits them: indented JSON, always as text. */
export function formatArgs(args: unknown): string {
	return JSON.stringify(args, null, 2) ?? '';
}

export function emptyDraft(approval: PendingApproval): ApprovalDraft {
	return { choice: null, reason: '', argsText: formatArgs(approval.args) };
}

export type ParsedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/** A tool's arguments are one JSON object (MCP's `arguments`); anything else is refused here. */
export function parseArgs(text: string): ParsedArgs {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (e) {
		return { ok: false, message: `This is not valid JSON: ${(e as SyntaxError).message}` };
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		return { ok: false, message: 'The arguments must be one JSON object, such as {"item": "value"}.' };
	}
	return { ok: true, args: value as Record<string, unknown> };
}

function decisionFor(approval: PendingApproval, draft: ApprovalDraft | undefined): Decision | string {
	const toolCallId = approval.toolCallId;
	switch (draft?.choice ?? null) {
		case null:
			return UNDECIDED_MESSAGE;
		case 'approve':
			return { toolCallId, action: 'approve' };
		case 'always':
			return { toolCallId, action: 'approve', remember: true };
		case 'deny': {
			const reason = draft!.reason.trim();
			if (reason.length > MAX_REASON_CHARS) return `The reason must be at most ${MAX_REASON_CHARS} characters.`;
			return { toolCallId, action: 'deny', ...(reason ? { reason } : {}) };
		}
		case 'edit': {
			const parsed = parseArgs(draft!.argsText);
			return parsed.ok ? { toolCallId, action: 'edit', args: parsed.args } : parsed.message;
		}
	}
}

export type DraftCheck = { ok: true; decisions: Decision[] } | { ok: false; problems: Record<string, string> };

/** One decision per waiting call, in their order, or what is wrong with each call that is not ready. */
export function decisionsFrom(approvals: readonly PendingApproval[], drafts: Readonly<Record<string, ApprovalDraft>>): DraftCheck {
	const decisions: Decision[] = [];
	const problems: Record<string, string> = {};
	for (const approval of approvals) {
		const d = decisionFor(approval, drafts[approval.toolCallId]);
		if (typeof d === 'string') problems[approval.toolCallId] = d;
		else decisions.push(d);
	}
	return Object.keys(problems).length ? { ok: false, problems } : { ok: true, decisions };
}
