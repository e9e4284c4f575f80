import { ApiError } from '../errors';
import type { ApprovalStorage, BranchStorage, RunStorage } from '../storage/app-storage';
import type { BranchReader } from '../branches/branch-reader';

export type BranchSwitchParts = {
	branchReader: BranchReader;
	branches: Pick<BranchStorage, 'switchTo'>;
	runs: Pick<RunStorage, 'hasRunning'>;
	approvals: Pick<ApprovalStorage, 'pending'>;
	/** When a checkpoint was written (its `ts`): the conversation's list position follows its branch. */
	writtenAt: (threadId: string, checkpointId: string) => Promise<string | undefined>;
};

/**
 * Makes the branch holding `messageId` the conversation's active one: the active branch itself if it
 * holds it, else the newest branch that does. Its message count and list position (the time its
 * head was written) become the conversation's. Refused while a run holds the conversation (409),
 * while tool calls of the active branch wait for a decision (409 APPROVAL_REQUIRED: decide first,
 * nothing is decided for the person), and for a message no branch holds (404). The choice is
 * stored, so it survives reloads and restarts.
 */
export async function switchBranch(parts: BranchSwitchParts, conversationId: string, messageId: string): Promise<void> {
	// Refused even when the branch is already active, as before any branch is read; switchTo checks again where it counts.
	if (await parts.runs.hasRunning(conversationId)) refuse('busy');
	if ((await parts.approvals.pending(conversationId)).length) refuse('waiting');
	const loaded = await parts.branchReader.load(conversationId);
	const holding = loaded?.tips.filter((t) => t.ids.includes(messageId)) ?? [];
	if (!loaded || holding.length === 0) throw new ApiError('NOT_FOUND', 'Message Not Found in any branch of this conversation');
	const chosen = holding.find((t) => t.tip === loaded.head) ?? holding.at(-1)!;
	const switched =
		chosen.tip === loaded.head
			? 'switched'
			: await parts.branches.switchTo(conversationId, chosen.tip, {
					messageCount: chosen.ids.length,
					updatedAt: await parts.writtenAt(conversationId, chosen.tip)
				});
	if (switched !== 'switched') refuse(switched);
}

function refuse(why: 'busy' | 'waiting'): never {
	if (why === 'busy') throw new ApiError('SESSION_IN_PROGRESS', 'A run is active on this conversation; switch branches when it ends');
	throw new ApiError('APPROVAL_REQUIRED', 'Tool calls of this branch wait for a decision: decide them before switching');
}
