// Putting a thread's checkpoints into a saver as the runs that wrote them did: one put per
// checkpoint, parents first, then its tasks' writes. Shared by the engine-to-engine copy
// (portable/checkpoint-copy.ts) and a bundle's import (storage's transfer, on either engine).

import type { BaseCheckpointSaver, ChannelVersions, Checkpoint, CheckpointMetadata, PendingWrite } from '@langchain/langgraph-checkpoint';
import { WRITES_IDX_MAP } from '@langchain/langgraph-checkpoint';

/** A checkpoint of a thread, as saver.list reads it back, apart from the thread. */
export type ThreadCheckpoint = {
	ns: string;
	checkpoint: Checkpoint;
	metadata: CheckpointMetadata;
	/** The checkpoint it was written after, in the same namespace; null for a root. */
	parentId: string | null;
	/** [taskId, channel, value], as pendingWrites. */
	writes: [string, string, unknown][];
};

/** Channels whose version differs from the parent's: what the put that made the checkpoint was given. */
export function newVersionsOf(checkpoint: Checkpoint, parent: Checkpoint | undefined): ChannelVersions {
	const before = parent?.channel_versions ?? {};
	return Object.fromEntries(Object.entries(checkpoint.channel_versions).filter(([channel, v]) => before[channel] !== v));
}

/**
 * A task's writes as the putWrites calls that made them: the ordinary ones in index order, and
 * the special channels (errors, interrupts, resumes) whose index is their channel's, in a call of
 * their own so the ordinary ones keep theirs.
 */
export function writeCalls(writes: readonly [string, string, unknown][]): { taskId: string; writes: PendingWrite[] }[] {
	const byTask = new Map<string, { ordinary: PendingWrite[]; special: PendingWrite[] }>();
	for (const [taskId, channel, value] of writes) {
		const task = byTask.get(taskId) ?? { ordinary: [], special: [] };
		byTask.set(taskId, task);
		(channel in WRITES_IDX_MAP ? task.special : task.ordinary).push([channel, value]);
	}
	return [...byTask].flatMap(([taskId, { ordinary, special }]) =>
		[ordinary, special].filter((writes) => writes.length > 0).map((writes) => ({ taskId, writes }))
	);
}

/**
 * Puts one checkpoint of `threadId` and its writes. `parent`: the checkpoint it was written after,
 * put before it (its versions tell which channels this put changes).
 */
export async function putThreadCheckpoint(
	saver: BaseCheckpointSaver,
	threadId: string,
	entry: ThreadCheckpoint,
	parent: Checkpoint | undefined
): Promise<void> {
	const { ns, checkpoint, parentId } = entry;
	await saver.put(
		{ configurable: { thread_id: threadId, checkpoint_ns: ns, ...(parentId ? { checkpoint_id: parentId } : {}) } },
		checkpoint,
		entry.metadata,
		newVersionsOf(checkpoint, parent)
	);
	const at = { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
	for (const call of writeCalls(entry.writes)) await saver.putWrites(at, call.writes, call.taskId);
}

/** Puts every checkpoint of a thread into a saver that holds none of it, parents first (as given). */
export async function putThreadCheckpoints(saver: BaseCheckpointSaver, threadId: string, entries: readonly ThreadCheckpoint[]): Promise<void> {
	const byId = new Map<string, Checkpoint>();
	for (const entry of entries) {
		await putThreadCheckpoint(saver, threadId, entry, entry.parentId === null ? undefined : byId.get(`${entry.ns}\0${entry.parentId}`));
		byId.set(`${entry.ns}\0${entry.checkpoint.id}`, entry.checkpoint);
	}
}
