// Checkpoints of one message thread, for saver tests that put them by hand. One object per message,
// as LangGraph hands the same messages from step to step: a saver's item cache then confirms a
// parent's items without reading them, and its puts are planned ahead.

import { HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';

export const loopMetadata = { source: 'loop' as const, step: 0, parents: {} };

/** `message(id)` (the same object for an id) and a checkpoint holding the messages `ids` at `version`. */
export function messageCheckpoints() {
	const messages = new Map<string, HumanMessage>();
	const message = (id: string) =>
		messages.get(id) ?? messages.set(id, new HumanMessage({ id, content: `message ${id}, long enough to be worth a link` })).get(id)!;
	const checkpoint = (ids: string[], version: number): Checkpoint => ({
		...emptyCheckpoint(),
		id: uuid6(-1),
		channel_values: { messages: ids.map(message) },
		channel_versions: { messages: version }
	});
	return { message, checkpoint };
}

/** A thread's root namespace, at `checkpointId` if given, in run `runId` if given. */
export const threadAt = (thread: string, checkpointId?: string, runId?: string): RunnableConfig => ({
	configurable: { thread_id: thread, checkpoint_ns: '', ...(checkpointId ? { checkpoint_id: checkpointId } : {}), ...(runId ? { run_id: runId } : {}) }
});
