import type { BaseMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { AgentGraph } from './agent-graph';
import type { MessageDto } from '../../protocol';
import { isShownMessage, toMessageDto, toMessageDtos } from './messages';

/**
 * `pending` is the steps a resume would run or complete. It is not LangGraph's `next`: a step whose
 * writes were saved before a crash cut its checkpoint has results, so `next` leaves it out and
 * reads empty although the thread is unfinished; its task is still there.
 */
export type ThreadState = { messages: MessageDto[]; pending: string[] };

export type CheckpointSummary = {
	checkpoint_id: string;
	created_at: string | null;
	step: number | null;
	source: string | null;
	next: string[];
	message_count: number;
	last_message: MessageDto | null;
};

const threadConfig = (threadId: string) => ({ configurable: { thread_id: threadId } });

/** Reads threads from their checkpoints; never calls the model or a tool. */
export class ThreadReader {
	constructor(
		private readonly graph: AgentGraph,
		private readonly checkpointer: BaseCheckpointSaver
	) {}

	/**
	 * The thread's messages as of its latest checkpoint, read from the saver directly: what
	 * `getState` would give as values, without building the pending tasks a run does not need.
	 */
	async messages(threadId: string): Promise<BaseMessage[]> {
		const tuple = await this.checkpointer.getTuple(threadConfig(threadId));
		return (tuple?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
	}

	/** How many messages the API shows for the thread (`state(…).messages.length`), more cheaply. */
	async messageCount(threadId: string): Promise<number> {
		return (await this.messages(threadId)).filter(isShownMessage).length;
	}

	async state(threadId: string): Promise<ThreadState> {
		const snapshot = await this.graph.getState(threadConfig(threadId));
		const messages = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
		return { messages: toMessageDtos(messages), pending: snapshot.tasks.map((t) => t.name) };
	}

	/** Every checkpoint of the thread, oldest first. */
	async *history(threadId: string): AsyncGenerator<CheckpointSummary> {
		const newestFirst = [];
		for await (const snapshot of this.graph.getStateHistory(threadConfig(threadId))) newestFirst.push(snapshot);
		for (const snapshot of newestFirst.reverse()) {
			const messages = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
			const dtos = toMessageDtos(messages);
			const metadata = snapshot.metadata as { step?: number; source?: string } | undefined;
			yield {
				checkpoint_id: String(snapshot.config.configurable?.checkpoint_id ?? ''),
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
