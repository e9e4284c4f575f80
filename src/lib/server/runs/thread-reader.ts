import type { BaseMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { HandsOverLatest } from '../checkpoint/handed-over';
import type { AgentGraph } from '../agent/agent-graph';
import type { MessageDto } from '../../protocol';
import { isShownMessage, toMessageDto, toMessageDtos } from '../agent/messages';

/**
 * `pending` is the steps a resume would run or complete. It is not LangGraph's `next`: a step whose
 * writes were saved before a crash cut its checkpoint has results, so `next` leaves it out and
 * reads empty although the thread is unfinished; its task is still there.
 */
export type ThreadState = { messages: MessageDto[]; pending: string[] };

export type CheckpointSummary = {
	checkpoint_id: string;
	/** The checkpoint it was written after; branches share the ones before they fork. */
	parent_checkpoint_id: string | null;
	created_at: string | null;
	step: number | null;
	source: string | null;
	next: string[];
	message_count: number;
	last_message: MessageDto | null;
};

/** Where a thread's active branch is: its stored head (none until it first branches) and its latest checkpoint. */
export type BranchHeads = {
	stored(threadId: string): Promise<string | undefined>;
	latest(threadId: string): Promise<string | undefined>;
};

export type ThreadConfig = { configurable: { thread_id: string; checkpoint_id?: string } };

/** The thread at `checkpointId`; with none, at its latest checkpoint. */
export const configAt = (threadId: string, checkpointId: string | undefined): ThreadConfig => ({
	configurable: { thread_id: threadId, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) }
});

/** The thread's latest checkpoint as a run read it opening: its messages, and `handOver()` (ThreadReader.latest). */
export type LatestRead = { messages: BaseMessage[]; handOver(): () => void };

const messagesOf = (tuple: CheckpointTuple | undefined) => (tuple?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];

/** How many of `messages` the API shows. */
export const shownCount = (messages: readonly BaseMessage[]) => messages.filter(isShownMessage).length;

/** Reads threads at their active branch's head, from their checkpoints; never calls the model or a tool. */
export class ThreadReader {
	constructor(
		private readonly graph: AgentGraph,
		private readonly checkpointer: BaseCheckpointSaver & HandsOverLatest,
		private readonly heads: BranchHeads
	) {}

	/** The active branch's head; a thread that never branched is read at its latest checkpoint. */
	async headConfig(threadId: string): Promise<ThreadConfig> {
		return configAt(threadId, await this.heads.stored(threadId));
	}

	/**
	 * Where a run starts, given the stored head (`heads.stored`) when the caller has read it already.
	 * A head that is the latest checkpoint is not named, so LangGraph loads it as it always has and a
	 * resumed step reuses the writes it saved; an earlier one is named, and LangGraph forks from it,
	 * as its time travel does (the steps after it run again).
	 */
	async startConfig(threadId: string, stored?: { head: string | undefined }): Promise<ThreadConfig> {
		const head = stored ? stored.head : await this.heads.stored(threadId);
		const named = head !== undefined && head !== (await this.heads.latest(threadId));
		return configAt(threadId, named ? head : undefined);
	}

	/**
	 * The messages at the active branch's head (or at `at`), read from the saver directly: what
	 * `getState` would give as values, without building the pending tasks a run does not need.
	 */
	async messages(threadId: string, at?: ThreadConfig): Promise<BaseMessage[]> {
		return messagesOf(await this.checkpointer.getTuple(at ?? (await this.headConfig(threadId))));
	}

	/**
	 * The thread's latest checkpoint, read for a run about to start. `handOver()` lends the read to
	 * the saver's next read of that checkpoint, the run's graph's first, so it is not made again
	 * (checkpoint/handed-over.ts); it returns the withdrawal.
	 */
	async latest(threadId: string): Promise<LatestRead> {
		const tuple = await this.checkpointer.getTuple(configAt(threadId, undefined));
		return { messages: messagesOf(tuple), handOver: () => this.checkpointer.handOver(threadId, tuple) };
	}

	/** How many messages the API shows for the thread (`state(…).messages.length`), more cheaply. */
	async messageCount(threadId: string): Promise<number> {
		return shownCount(await this.messages(threadId));
	}

	async state(threadId: string): Promise<ThreadState> {
		const snapshot = await this.graph.getState(await this.headConfig(threadId));
		const messages = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
		return { messages: toMessageDtos(messages), pending: snapshot.tasks.map((t) => t.name) };
	}

	/** The thread's checkpoints, oldest first: every one, or those `only` holds (a branch's path). */
	async *history(threadId: string, only?: ReadonlySet<string>): AsyncGenerator<CheckpointSummary> {
		const newestFirst = [];
		for await (const snapshot of this.graph.getStateHistory({ configurable: { thread_id: threadId } })) {
			if (!only || only.has(String(snapshot.config.configurable?.checkpoint_id))) newestFirst.push(snapshot);
		}
		for (const snapshot of newestFirst.reverse()) {
			const messages = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
			const dtos = toMessageDtos(messages);
			const metadata = snapshot.metadata as { step?: number; source?: string } | undefined;
			yield {
				checkpoint_id: String(snapshot.config.configurable?.checkpoint_id ?? ''),
				parent_checkpoint_id: (snapshot.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? null,
				created_at: snapshot.createdAt ?? null,
				step: metadata?.step ?? null,
				source: metadata?.source ?? null,
				next: [...snapshot.next],
				message_count: dtos.length,
				last_message: messages.length ? toMessageDto(messages.at(-1)!) : null
			};
		}
	}
}
