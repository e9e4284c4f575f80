import type { BaseMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { isShownMessage } from '../agent/messages';
import type { BranchStorage } from '../storage/branch-storage';
import type { CheckpointHistory } from '../storage/checkpoint-history';
import { parentsOf, pathTo, tipsOf, type BranchMessages, type Parents } from './branch-tree';

/** A thread's branches as read: its lineage, the active head and the shown messages at each tip. */
export type Branches = {
	parents: Parents;
	/** The active branch's head (the latest checkpoint for a thread that never branched). */
	head: string;
	active: BranchMessages;
	/** Every tip's branch, oldest first, the active one included. */
	tips: BranchMessages[];
};

/**
 * Reads a thread's branches from the checkpoint store: the lineage in one query, then the
 * messages at each tip through the saver (whose item cache holds them once for every branch).
 */
export class BranchReader {
	constructor(
		private readonly parts: {
			history: Pick<CheckpointHistory, 'latestId' | 'lineage'>;
			checkpointer: BaseCheckpointSaver;
			branches: Pick<BranchStorage, 'head'>;
		}
	) {}

	/** Whether the thread has ever branched (has an active-branch row); if not, it is one chain. */
	async hasBranched(threadId: string): Promise<boolean> {
		return (await this.parts.branches.head(threadId)) !== undefined;
	}

	/** The active branch's head: the stored one, else the thread's latest checkpoint. */
	async head(threadId: string): Promise<string | undefined> {
		return (await this.parts.branches.head(threadId)) ?? (await this.parts.history.latestId(threadId));
	}

	private async messagesAt(threadId: string, checkpointId: string): Promise<BaseMessage[]> {
		const tuple = await this.parts.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_id: checkpointId } });
		return (tuple?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
	}

	/** Ids of the messages the API shows at a checkpoint, memoised in `cache` for one request. */
	async shownIdsAt(threadId: string, checkpointId: string, cache = new Map<string, string[]>()): Promise<string[]> {
		let ids = cache.get(checkpointId);
		if (!ids) {
			ids = (await this.messagesAt(threadId, checkpointId)).filter(isShownMessage).map((m) => m.id ?? '');
			cache.set(checkpointId, ids);
		}
		return ids;
	}

	/** The thread's branches; undefined for a thread without checkpoints. */
	async load(threadId: string, cache = new Map<string, string[]>()): Promise<Branches | undefined> {
		const head = await this.head(threadId);
		if (head === undefined) return undefined;
		const lineage = await this.parts.history.lineage(threadId);
		const parents = parentsOf(lineage);
		const tipIds = tipsOf(lineage);
		// A head that is not a tip (a fork claimed, its first step not yet written) is a branch too.
		if (!tipIds.includes(head)) tipIds.push(head);
		const tips: BranchMessages[] = [];
		for (const tip of tipIds) tips.push({ tip, ids: await this.shownIdsAt(threadId, tip, cache) });
		return { parents, head, active: tips.find((t) => t.tip === head)!, tips };
	}

	/**
	 * Every message any branch holds, each once (branches share what precedes their fork): what a
	 * thread's runs produced, whichever branch is shown now. Without branches, the latest checkpoint's.
	 */
	async everyBranchMessages(threadId: string): Promise<BaseMessage[]> {
		const head = await this.head(threadId);
		if (head === undefined) return [];
		const tips = (await this.hasBranched(threadId)) ? tipsOf(await this.parts.history.lineage(threadId)) : [head];
		const seen = new Map<string, BaseMessage>();
		for (const tip of tips) {
			for (const m of await this.messagesAt(threadId, tip)) if (m.id && !seen.has(m.id)) seen.set(m.id, m);
		}
		return [...seen.values()];
	}

	/** The checkpoints of the active branch, root first. */
	async activePath(threadId: string): Promise<string[]> {
		const head = await this.head(threadId);
		return head === undefined ? [] : pathTo(parentsOf(await this.parts.history.lineage(threadId)), head);
	}

	/** The active branch's checkpoints; undefined for a thread that never branched (all of them are). */
	async activeCheckpoints(threadId: string): Promise<ReadonlySet<string> | undefined> {
		return (await this.hasBranched(threadId)) ? new Set(await this.activePath(threadId)) : undefined;
	}
}
