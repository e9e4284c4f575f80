import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { ConversationDetail, ConversationSummary, PendingElicitation, RunRecord } from '../../protocol';
import type { BranchReader } from '../branches/branch-reader';
import { NO_USAGE, usageByRun } from '../models/run-usage';
import type { ThreadReader } from '../runs/thread-reader';
import type { AppStorage } from '../storage/app-storage';
import type { ConversationNotFound } from '../runs/run-refusal';
import { switchBranch, type BranchSwitchRefusal } from './branch-switch';
import { checkpointJsonl } from './checkpoint-jsonl';
import { conversationDetail } from './conversation-detail';
import { markdownTranscript } from './markdown-transcript';

export type ConversationServiceParts = {
	threads: ThreadReader;
	storage: Pick<AppStorage, 'conversations' | 'runs' | 'queue' | 'approvals' | 'branches'>;
	branchReader: BranchReader;
	/** Reads when a branch's head was written, for a branch switch. */
	checkpointer: Pick<BaseCheckpointSaver, 'getTuple'>;
	/** The open questions of the conversation's running call, wherever it runs (elicitation/pending-elicitations.ts). */
	elicitations: (conversation: ConversationSummary) => Promise<PendingElicitation[]>;
};

/** The expected ways a conversation's own requests are refused; the edge (http/run-refusal-error.ts) answers each. */
export type ConversationRefusal = ConversationNotFound | { refused: 'delete-while-running' } | BranchSwitchRefusal;

/** A conversation as the API shows it: its detail, its runs, its branch switch, its exports and its deletion. */
export class ConversationService {
	constructor(private readonly parts: ConversationServiceParts) {}

	get(id: string): Promise<ConversationSummary | undefined> {
		return this.parts.storage.conversations.get(id);
	}

	/** GET /api/conversations/:id (conversation-detail.ts). */
	detail(conversation: ConversationSummary): Promise<ConversationDetail> {
		return conversationDetail(this.parts, conversation);
	}

	/** Its runs, newest first, each with the usage of its answers on every branch (a run whose branch is not shown still used what it used). */
	async runs(conversationId: string): Promise<RunRecord[]> {
		const usage = usageByRun(await this.parts.branchReader.everyBranchMessages(conversationId));
		return (await this.parts.storage.runs.list(conversationId)).map((run) => ({ ...run, usage: usage.get(run.id) ?? NO_USAGE }));
	}

	/** Makes the branch holding the message active (branch-switch.ts), and answers with the conversation as it now reads. */
	async switchBranch(conversationId: string, messageId: string): Promise<ConversationDetail | ConversationRefusal> {
		const { branchReader, storage, checkpointer } = this.parts;
		const refused = await switchBranch(
			{
				branchReader,
				branches: storage.branches,
				runs: storage.runs,
				approvals: storage.approvals,
				writtenAt: async (threadId, checkpointId) =>
					(await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_id: checkpointId } }))?.checkpoint.ts
			},
			conversationId,
			messageId
		);
		return refused ?? this.detail((await this.get(conversationId))!);
	}

	/** The active branch as a Markdown transcript. */
	async markdown(conversation: ConversationSummary): Promise<string> {
		const { messages } = await this.parts.threads.state(conversation.id);
		return markdownTranscript(conversation, messages);
	}

	/** One JSON line per checkpoint, oldest first: of the active branch, or of every branch. */
	async checkpointLines(conversationId: string, branches: 'active' | 'all'): Promise<AsyncGenerator<string>> {
		const only = branches === 'all' ? undefined : await this.parts.branchReader.activeCheckpoints(conversationId);
		return checkpointJsonl(this.parts.threads.history(conversationId, only));
	}

	/** Refused while a run holds the conversation (the storage checks in the same commit). */
	async delete(conversationId: string): Promise<{ deleted: string } | ConversationRefusal> {
		const deletion = await this.parts.storage.conversations.delete(conversationId);
		if (deletion === 'not-found') return { refused: 'conversation-not-found' };
		return deletion === 'running' ? { refused: 'delete-while-running' } : { deleted: conversationId };
	}
}
