import type { ConversationSummary, PendingElicitation } from '../../protocol';
import type { RunStorage } from '../storage/run-storage';
import type { SharedRuns } from '../storage/storage-engine';
import type { Elicitations } from './elicitations';

export type PendingElicitationsParts = {
	elicitations: Pick<Elicitations, 'pending'>;
	/** Whether the conversation's run executes in this process. */
	runsHere: (conversationId: string) => boolean;
	/** Runs other instances execute (PostgreSQL); null on one process. */
	shared: Pick<SharedRuns, 'openQuestions'> | null;
	runs: Pick<RunStorage, 'list'>;
};

/**
 * The open questions of a conversation's running call (its detail's `elicitations`), wherever the
 * call runs: this process's own, or, with several instances, the ones the kept events of a run
 * another instance executes show asked and not closed yet. Only a running conversation whose run
 * is not here is looked for elsewhere, so every other detail costs no read.
 */
export async function pendingElicitations(parts: PendingElicitationsParts, conversation: ConversationSummary): Promise<PendingElicitation[]> {
	const here = parts.elicitations.pending(conversation.id);
	if (here.length || !parts.shared || conversation.status !== 'running' || parts.runsHere(conversation.id)) return here;
	const run = (await parts.runs.list(conversation.id))[0];
	if (run?.status !== 'running') return here;
	return parts.shared.openQuestions(run.id);
}
