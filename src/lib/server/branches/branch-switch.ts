import type { BranchStore } from '../db/branch-store';
import type { ConversationStore } from '../db/conversation-store';
import type { RunStore } from '../db/run-store';
import type { ApprovalJournal } from '../tools/approval-journal';
import { ApiError } from '../errors';
import type { BranchReader } from './branch-reader';

export type BranchSwitchParts = {
	branchReader: BranchReader;
	branches: BranchStore;
	conversations: ConversationStore;
	runs: RunStore;
	approvals: Pick<ApprovalJournal, 'pending'>;
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
	refuseIfBusy(parts, conversationId);
	const loaded = await parts.branchReader.load(conversationId);
	const holding = loaded?.tips.filter((t) => t.ids.includes(messageId)) ?? [];
	if (!loaded || holding.length === 0) throw new ApiError('NOT_FOUND', 'Message Not Found in any branch of this conversation');
	const chosen = holding.find((t) => t.tip === loaded.head) ?? holding.at(-1)!;
	if (chosen.tip === loaded.head) return;
	const writtenAt = await parts.writtenAt(conversationId, chosen.tip);
	// Checked again where it counts: no run can be claimed between this check and the switch.
	parts.conversations.transaction(() => {
		refuseIfBusy(parts, conversationId);
		parts.branches.switchTo(conversationId, chosen.tip, parts.runs.list(conversationId)[0]?.id ?? null);
		parts.conversations.showBranch(conversationId, chosen.ids.length, writtenAt);
	});
}

function refuseIfBusy(parts: Pick<BranchSwitchParts, 'runs' | 'approvals'>, conversationId: string): void {
	if (parts.runs.hasRunning(conversationId)) {
		throw new ApiError('SESSION_IN_PROGRESS', 'A run is active on this conversation; switch branches when it ends');
	}
	if (parts.approvals.pending(conversationId).length) {
		throw new ApiError('APPROVAL_REQUIRED', 'Tool calls of this branch wait for a decision: decide them before switching');
	}
}
