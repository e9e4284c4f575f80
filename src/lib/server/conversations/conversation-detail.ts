import type { ConversationDetail, ConversationSummary, PendingElicitation } from '../../protocol';
import type { BranchReader } from '../branches/branch-reader';
import { withVersions } from '../branches/branch-versions';
import { readThreadWork, type ThreadWorkSources } from '../runs/read-thread-work';
import type { AppStorage } from '../storage/app-storage';

/**
 * GET /api/conversations/:id: the active branch's messages, with `versions` where branches
 * diverge, whether a resume has work, the queue, the calls waiting for a decision and the questions
 * its running call waits on an answer to.
 */
export async function conversationDetail(
	parts: {
		threads: ThreadWorkSources['threads'];
		storage: Pick<AppStorage, 'runs' | 'queue' | 'approvals' | 'branches'>;
		branchReader: BranchReader;
		/** The questions its running call waits on an answer to, wherever it runs (elicitation/pending-elicitations.ts). */
		elicitations: (conversation: ConversationSummary) => Promise<PendingElicitation[]>;
	},
	conversation: ConversationSummary
): Promise<ConversationDetail> {
	const { messages } = await parts.threads.state(conversation.id);
	const work = await readThreadWork(parts, conversation.id);
	return {
		conversation,
		messages: await withVersions(parts.branchReader, conversation.id, messages),
		resumable: work.kind === 'unfinished' && !(await parts.storage.runs.hasRunning(conversation.id)),
		queue: await parts.storage.queue.list(conversation.id),
		approvals: await parts.storage.approvals.pending(conversation.id),
		elicitations: await parts.elicitations(conversation)
	};
}
