import { isDeepStrictEqual } from 'node:util';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { newVersionsOf, writeCalls } from '../checkpoint/thread-put';

/** Every checkpoint of a thread, every namespace, oldest first: a parent always before its children (uuid6 ids sort by time). */
async function tuplesOf(saver: BaseCheckpointSaver, threadId: string): Promise<CheckpointTuple[]> {
	const tuples: CheckpointTuple[] = [];
	for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) tuples.push(tuple);
	const id = (t: CheckpointTuple) => t.checkpoint.id;
	return tuples.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}

const countOf = (tuple: CheckpointTuple | undefined, taskId: string) =>
	(tuple?.pendingWrites ?? []).filter(([task]) => task === taskId).length;

/**
 * Copies a thread's checkpoints and pending writes from one saver to another through LangGraph's
 * saver API, parents first, so the target builds its own layout (its item logs, its write links)
 * as a run writing them would have. Resumable: a checkpoint the target has is not put again, and a
 * task whose writes it lacks gets them, so a copy killed halfway is finished by running it again.
 * Returns how many checkpoints it put.
 */
export async function copyThreadCheckpoints(source: BaseCheckpointSaver, target: BaseCheckpointSaver, threadId: string): Promise<number> {
	const tuples = await tuplesOf(source, threadId);
	const byId = new Map(tuples.map((t) => [t.checkpoint.id, t]));
	let put = 0;
	for (const tuple of tuples) {
		const { checkpoint_ns: ns = '' } = tuple.config.configurable ?? {};
		const at = { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: tuple.checkpoint.id } };
		let there = await target.getTuple(at);
		if (!there) {
			if (!tuple.metadata) throw new Error(`checkpoint ${tuple.checkpoint.id} of thread ${threadId} reads back without metadata`);
			const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
			await target.put(
				{ configurable: { thread_id: threadId, checkpoint_ns: ns, ...(parentId ? { checkpoint_id: parentId } : {}) } },
				tuple.checkpoint,
				tuple.metadata,
				newVersionsOf(tuple.checkpoint, parentId ? byId.get(parentId)?.checkpoint : undefined)
			);
			put++;
		}
		for (const call of writeCalls(tuple.pendingWrites ?? [])) {
			if (countOf(there, call.taskId) >= countOf(tuple, call.taskId)) continue;
			await target.putWrites(at, call.writes, call.taskId);
		}
	}
	return put;
}

/**
 * Equal as JSON, whatever the key order: metadata comes back from PostgreSQL's jsonb with its keys
 * reordered, and a value's JSON is what the savers store.
 */
function sameJson(a: unknown, b: unknown): boolean {
	const plain = (v: unknown) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
	return isDeepStrictEqual(plain(a), plain(b));
}

/**
 * How many checkpoints the thread has on `a`, and where `b` reads it differently (the first
 * differing checkpoint: config, parent, values, versions, metadata, pending writes), or null when
 * every checkpoint reads back the same.
 */
export async function compareThreadCheckpoints(
	a: BaseCheckpointSaver,
	b: BaseCheckpointSaver,
	threadId: string
): Promise<{ count: number; difference: string | null }> {
	const [left, right] = await Promise.all([tuplesOf(a, threadId), tuplesOf(b, threadId)]);
	const count = left.length;
	if (left.length !== right.length) return { count, difference: `thread ${threadId}: ${left.length} checkpoints read from the source, ${right.length} from the target` };
	const parts = (t: CheckpointTuple): Record<string, unknown> => ({
		config: t.config.configurable,
		parent: t.parentConfig?.configurable ?? null,
		// What a thread's state is made of: the channels with a version. PostgreSQL keeps only those,
		// as the stock PostgresSaver does (README "PostgreSQL"), where SQLite also returns unversioned
		// ones (`__pregel_tasks: []`, an input checkpoint's empty `messages`) that LangGraph ignores.
		...Object.fromEntries(Object.keys(t.checkpoint.channel_versions).map((channel) => [`channel ${channel}`, t.checkpoint.channel_values[channel]])),
		versions: t.checkpoint.channel_versions,
		seen: t.checkpoint.versions_seen,
		ts: t.checkpoint.ts,
		metadata: t.metadata,
		writes: [...(t.pendingWrites ?? [])].sort((x, y) => (`${x[0]}\0${x[1]}` < `${y[0]}\0${y[1]}` ? -1 : 1))
	});
	for (let i = 0; i < left.length; i++) {
		const [l, r] = [parts(left[i]!), parts(right[i]!)];
		const differing = [...new Set([...Object.keys(l), ...Object.keys(r)])].filter((k) => !sameJson(l[k], r[k]));
		if (differing.length > 0) {
			return { count, difference: `thread ${threadId}: checkpoint ${left[i]!.checkpoint.id} reads back with a different ${differing.join(', ')}` };
		}
	}
	return { count, difference: null };
}
