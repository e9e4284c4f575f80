import { isShownMessage } from '../agent/messages';
import type { AgentGraph } from '../agent/agent-graph';
import type { ThreadReader } from '../runs/thread-reader';
import { ApiError } from '../errors';
import { firstHolding } from '../branches/branch-tree';
import type { BranchReader } from '../branches/branch-reader';

/** What a new branch replaces: a user message (edit) or an assistant message (regenerate). */
export type ForkTarget = { kind: 'edit' | 'regenerate'; messageId: string };

export type ForkPointParts = { graph: AgentGraph; threads: ThreadReader; branchReader: BranchReader };

const ROLE = { edit: 'user', regenerate: 'assistant' } as const;

/**
 * Where a branch that replaces a message of the active branch starts: the checkpoint just before
 * the step that first wrote the message. For an edit that is the checkpoint holding the message as
 * input (a run from it with other input drops the old one); for a regenerate, the one before the
 * agent step that produced the answer (a run from it runs that step again).
 * Refuses a message the active branch does not show (404), one of the wrong role (400), and one
 * whose starting checkpoint retention has pruned (409 BRANCH_POINT_PRUNED).
 */
export async function findForkPoint(parts: ForkPointParts, threadId: string, target: ForkTarget): Promise<string> {
	const shown = (await parts.threads.messages(threadId)).filter(isShownMessage);
	const index = shown.findIndex((m) => m.id === target.messageId);
	if (index < 0) throw new ApiError('NOT_FOUND', 'Message Not Found on the active branch');
	const role = ROLE[target.kind];
	if (shown[index]!.getType() !== (role === 'user' ? 'human' : 'ai')) {
		throw new ApiError('BAD_REQUEST', target.kind === 'edit' ? 'editOf must name a user message' : 'regenerate must name an assistant message');
	}
	const path = await parts.branchReader.activePath(threadId);
	const cache = new Map<string, string[]>();
	const first = await firstHolding(path, async (id) => (await parts.branchReader.shownIdsAt(threadId, id, cache)).length > index);
	if (first <= 0) {
		throw new ApiError('BRANCH_POINT_PRUNED', 'The checkpoint before this message is no longer kept (CHECKPOINT_RETENTION), so no branch can start there');
	}
	const from = path[first - 1]!;
	if (target.kind === 'regenerate') {
		const before = await parts.graph.getState({ configurable: { thread_id: threadId, checkpoint_id: from } });
		if (!before.tasks.some((t) => t.name === 'agent')) throw new ApiError('BAD_REQUEST', 'This message was not written by a model step, so it cannot be regenerated');
	}
	return from;
}
