import { isShownMessage } from '../agent/messages';
import type { AgentGraph } from '../agent/agent-graph';
import type { ThreadReader } from '../runs/thread-reader';
import type { ForkRefusal } from './run-refusal';
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
 * Refuses, as a value, a message the active branch does not show, one of the wrong role, an answer
 * no model step wrote (a regenerate), and one whose starting checkpoint retention has pruned.
 */
export async function findForkPoint(parts: ForkPointParts, threadId: string, target: ForkTarget): Promise<{ from: string } | ForkRefusal> {
	const shown = (await parts.threads.messages(threadId)).filter(isShownMessage);
	const index = shown.findIndex((m) => m.id === target.messageId);
	if (index < 0) return { refused: 'message-not-on-branch' };
	const role = ROLE[target.kind];
	if (shown[index]!.getType() !== (role === 'user' ? 'human' : 'ai')) return { refused: 'wrong-role', target: target.kind };
	const path = await parts.branchReader.activePath(threadId);
	const cache = new Map<string, string[]>();
	const first = await firstHolding(path, async (id) => (await parts.branchReader.shownIdsAt(threadId, id, cache)).length > index);
	if (first <= 0) return { refused: 'branch-point-pruned' };
	const from = path[first - 1]!;
	if (target.kind === 'regenerate') {
		const before = await parts.graph.getState({ configurable: { thread_id: threadId, checkpoint_id: from } });
		if (!before.tasks.some((t) => t.name === 'agent')) return { refused: 'not-a-model-step' };
	}
	return { from };
}
