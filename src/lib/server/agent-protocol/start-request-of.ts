/**
 * What a protocol run on a thread asks of Sophos's run core: a message, an edit or a regenerate
 * from a checkpoint, a resume, or decisions on the waiting calls, read against the thread as it is
 * now. Reads only; RunService checks again in the commit that claims the run.
 */
import type { Decision } from '../../protocol';
import { isShownMessage } from '../agent/messages';
import type { BranchReader } from '../branches/branch-reader';
import { isRefusal } from '../runs/run-refusal';
import type { StartRequest } from '../runs/start-request';
import type { ThreadReader } from '../runs/thread-reader';
import type { AppStorage } from '../storage/app-storage';
import type { ProtocolRefusal } from './protocol-refusal';
import type { HitlDecision, RunIntent, RunOptions } from './run-create';
import { interruptIdOf } from './thread-values';

export type StartRequestParts = {
	storage: Pick<AppStorage, 'runs' | 'approvals'>;
	threads: Pick<ThreadReader, 'messages'>;
	branchReader: Pick<BranchReader, 'activePath' | 'shownIdsAt'>;
};

/** The start request of a run on `threadId`; `runId` when the client's message id names it. */
export async function startRequestOf(
	parts: StartRequestParts,
	threadId: string,
	intent: RunIntent,
	options: RunOptions,
	runId: string | null
): Promise<StartRequest | ProtocolRefusal> {
	const busy = { ifBusy: options.ifBusy };
	const named = runId ? { runId } : {};
	switch (intent.kind) {
		case 'message': {
			if (intent.checkpointId) {
				const editOf = await messageAfter(parts, threadId, intent.checkpointId, 'human');
				if (typeof editOf !== 'string') return editOf;
				return { kind: 'edit', conversation: threadId, editOf, message: intent.text, ...busy, ...named };
			}
			if (options.multitask === 'rollback') {
				const rolledBack = await rollbackTarget(parts, threadId);
				if (rolledBack) return { kind: 'edit', conversation: threadId, editOf: rolledBack, message: intent.text, ...busy, ...named };
			}
			return {
				kind: 'message',
				conversation: threadId,
				message: intent.text,
				...busy,
				...named,
				...(options.createThread ? { createIfMissing: true } : {})
			};
		}
		case 'no-input': {
			if (!intent.checkpointId) return { kind: 'resume', conversation: threadId };
			const messageId = await messageAfter(parts, threadId, intent.checkpointId, 'ai');
			return typeof messageId === 'string' ? { kind: 'regenerate', conversation: threadId, messageId, ...busy } : messageId;
		}
		case 'decide': {
			const decisions = await decisionsOf(parts, threadId, intent.decisions, intent.interruptId);
			return isRefusal<Decision[], ProtocolRefusal>(decisions) ? decisions : { kind: 'decide', conversation: threadId, decisions };
		}
		case 'deny-all': {
			const pending = await parts.storage.approvals.pending(threadId);
			if (pending.length === 0) return { refused: 'thread-not-waiting' };
			return { kind: 'decide', conversation: threadId, decisions: pending.map((p) => ({ toolCallId: p.toolCallId, action: 'deny', reason: intent.reason })) };
		}
	}
}

/**
 * HITL decisions answer the interrupt's action requests by position, which are the waiting calls
 * in the order they were asked about. A resume naming another interrupt than the thread's, or
 * sent when none waits, is a 409 and changes nothing.
 */
async function decisionsOf(
	parts: StartRequestParts,
	threadId: string,
	decisions: HitlDecision[],
	interruptId: string | null
): Promise<Decision[] | ProtocolRefusal> {
	const pending = await parts.storage.approvals.pending(threadId);
	if (pending.length === 0) return { refused: 'thread-not-waiting' };
	if (interruptId !== null && interruptId !== interruptIdOf(pending)) return { refused: 'stale-interrupt', interruptId };
	if (decisions.length !== pending.length) return { refused: 'decisions-miscounted', waiting: pending.length, given: decisions.length };
	return decisions.map((d, i): Decision => {
		const toolCallId = pending[i]!.toolCallId;
		if (d.type === 'approve') return { toolCallId, action: 'approve' };
		if (d.type === 'edit') return { toolCallId, action: 'edit', args: d.edited_action.args };
		return { toolCallId, action: 'deny', ...(d.message ? { reason: d.message } : {}) };
	});
}

/**
 * The message a run from `checkpointId` replaces: the first the active branch shows after the
 * messages of that checkpoint (a human one for an edit, the answer for a regenerate), as
 * agent-chat-ui forks from the checkpoint before the message it edits or regenerates.
 */
async function messageAfter(parts: StartRequestParts, threadId: string, checkpointId: string, type: 'human' | 'ai'): Promise<string | ProtocolRefusal> {
	if (!(await parts.branchReader.activePath(threadId)).includes(checkpointId)) return { refused: 'checkpoint-off-branch', checkpointId };
	const at = await parts.branchReader.shownIdsAt(threadId, checkpointId);
	const shown = (await parts.threads.messages(threadId)).filter(isShownMessage);
	const next = shown[at.length];
	if (!next || at.some((id, i) => shown[i]?.id !== id) || next.getType() !== type) return { refused: 'checkpoint-without-next', type };
	return next.id!;
}

/** `rollback`: the thread goes back to before its message run in flight, whose user message has the run's id. */
async function rollbackTarget(parts: StartRequestParts, threadId: string): Promise<string | null> {
	const latest = (await parts.storage.runs.list(threadId))[0];
	return latest?.status === 'running' && latest.trigger === 'message' ? latest.id : null;
}
