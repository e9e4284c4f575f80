// A thread's checkpoints in a bundle and back (protocol/bundle.ts): every value as the checkpoint
// serializer's JSON, each element of an array channel (the messages) kept once in `items` however
// many checkpoints hold it, so a bundle grows with the conversation, not with its square.

import type { BaseCheckpointSaver, Checkpoint, CheckpointMetadata, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { BundleCheckpoint, BundleJson, BundleValue, ConversationBundle } from '../../protocol';
import type { ThreadCheckpoint } from '../checkpoint/thread-put';

/** Every checkpoint of the thread, every namespace, parents first (uuid6 ids sort by time). */
export async function threadCheckpoints(saver: Pick<BaseCheckpointSaver, 'list'>, threadId: string): Promise<ThreadCheckpoint[]> {
	const out: ThreadCheckpoint[] = [];
	for await (const t of saver.list({ configurable: { thread_id: threadId } })) {
		out.push({
			ns: (t.config.configurable?.checkpoint_ns as string | undefined) ?? '',
			checkpoint: t.checkpoint,
			metadata: t.metadata ?? ({} as CheckpointMetadata),
			parentId: (t.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? null,
			writes: t.pendingWrites ?? []
		});
	}
	return out.sort((a, b) => (a.checkpoint.id < b.checkpoint.id ? -1 : a.checkpoint.id > b.checkpoint.id ? 1 : 0));
}

/** The serializer's JSON of a value, as a value. A serializer that writes anything but JSON cannot go in a bundle. */
async function toJson(serde: SerializerProtocol, value: unknown): Promise<BundleJson> {
	const [type, bytes] = await serde.dumpsTyped(value);
	if (type !== 'json') throw new Error(`a checkpoint value serializes as "${type}", not JSON: it cannot go in a bundle`);
	return JSON.parse(typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes));
}

const fromJson = (serde: SerializerProtocol, json: unknown): Promise<unknown> => serde.loadsTyped('json', JSON.stringify(json));

export async function encodeCheckpoints(
	serde: SerializerProtocol,
	entries: readonly ThreadCheckpoint[]
): Promise<Pick<ConversationBundle, 'items' | 'checkpoints'>> {
	const items: BundleJson[] = [];
	const itemIndex = new Map<string, number>();
	// The saver hands out one object for an item every checkpoint shares (its item cache): serialized once.
	const seen = new WeakMap<object, number>();
	const encode = async (value: unknown): Promise<BundleValue> => {
		if (!Array.isArray(value)) return { value: await toJson(serde, value) };
		const refs: number[] = [];
		for (const element of value) {
			const known = typeof element === 'object' && element !== null ? seen.get(element) : undefined;
			if (known !== undefined) {
				refs.push(known);
				continue;
			}
			const json = await toJson(serde, element);
			const key = JSON.stringify(json);
			let at = itemIndex.get(key);
			if (at === undefined) {
				at = items.push(json) - 1;
				itemIndex.set(key, at);
			}
			if (typeof element === 'object' && element !== null) seen.set(element, at);
			refs.push(at);
		}
		return { items: refs };
	};
	const checkpoints: BundleCheckpoint[] = [];
	for (const { ns, checkpoint, metadata, parentId, writes } of entries) {
		const { id, channel_values: channelValues, ...skeleton } = checkpoint;
		const values: Record<string, BundleValue> = {};
		for (const [channel, value] of Object.entries(channelValues)) values[channel] = await encode(value);
		checkpoints.push({
			ns,
			id,
			parentId,
			checkpoint: (await toJson(serde, skeleton)) as BundleCheckpoint['checkpoint'],
			metadata: (await toJson(serde, metadata)) as BundleCheckpoint['metadata'],
			values,
			writes: await Promise.all(writes.map(async ([taskId, channel, value]) => ({ taskId, channel, value: await encode(value) })))
		});
	}
	return { items, checkpoints };
}

/** The bundle's checkpoints as the saver takes them; the bundle is checked already (bundle-check.ts: every item index in range). */
export async function decodeCheckpoints(serde: SerializerProtocol, bundle: Pick<ConversationBundle, 'items' | 'checkpoints'>): Promise<ThreadCheckpoint[]> {
	// Each item loaded once and shared by every checkpoint that holds it, as a run's successive states share their messages.
	const items: unknown[] = [];
	for (const item of bundle.items) items.push(await fromJson(serde, item));
	const decode = async (v: BundleValue): Promise<unknown> => ('value' in v ? fromJson(serde, v.value) : v.items.map((i) => items[i]));
	const out: ThreadCheckpoint[] = [];
	for (const entry of bundle.checkpoints) {
		const channelValues: Record<string, unknown> = {};
		for (const [channel, value] of Object.entries(entry.values)) channelValues[channel] = await decode(value);
		const skeleton = (await fromJson(serde, entry.checkpoint)) as Omit<Checkpoint, 'id' | 'channel_values'>;
		out.push({
			ns: entry.ns,
			checkpoint: { ...skeleton, id: entry.id, channel_values: channelValues },
			metadata: (await fromJson(serde, entry.metadata)) as CheckpointMetadata,
			parentId: entry.parentId,
			writes: await Promise.all(entry.writes.map(async (w): Promise<[string, string, unknown]> => [w.taskId, w.channel, await decode(w.value)]))
		});
	}
	return out;
}
