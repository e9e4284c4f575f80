import type { ApprovalStorage } from '../storage/approval-storage';
import type { BranchStorage } from '../storage/branch-storage';
import type { RunStorage } from '../storage/run-storage';
import type { BranchReader } from '../branches/branch-reader';

/** Why no switch: a run holds the conversation, tool calls wait for a decision, or no branch holds the message. */
export type BranchSwitchRefusal = { refused: 'switch-while-running' } | { refused: 'switch-while-waiting' } | { refused: 'message-not-in-any-branch' };

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
 * head was written) become the conversation's. Refused while a run holds the conversation, while
 * tool calls of the active branch wait for a decision (decide first: nothing is decided for the
 * person), and for a message no branch holds. The choice is stored, so it survives reloads and restarts.
 */
export async function switchBranch(parts: BranchSwitchParts, conversationId: string, messageId: string): Promise<BranchSwitchRefusal | null> {
	// Refused even when the branch is already active, as before any branch is read; switchTo checks again where it counts.
	if (await parts.runs.hasRunning(conversationId)) return refusal('busy');
	if ((await parts.approvals.pending(conversationId)).length) return refusal('waiting');
	const loaded = await parts.branchReader.load(conversationId);
	const holding = loaded?.tips.filter((t) => t.ids.includes(messageId)) ?? [];
	if (!loaded || holding.length === 0) return { refused: 'message-not-in-any-branch' };
	const chosen = holding.find((t) => t.tip === loaded.head) ?? holding.at(-1)!;
	const switched =
		chosen.tip === loaded.head
			? 'switched'
			: await parts.branches.switchTo(conversationId, chosen.tip, {
					messageCount: chosen.ids.length,
					updatedAt: await parts.writtenAt(conversationId, chosen.tip)
				});
	return switched === 'switched' ? null : refusal(switched);
}

function refusal(why: 'busy' | 'waiting'): BranchSwitchRefusal {
	return { refused: why === 'busy' ? 'switch-while-running' : 'switch-while-waiting' };
}
