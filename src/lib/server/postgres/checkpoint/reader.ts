// Turns checkpoint rows into LangGraph's CheckpointTuples: channel values from their ChannelMap,
// pending writes with their links followed. Works on a batch (one getTuple, or a page of list()) so
// the items the batch needs arrive in one round trip, whatever the number of rows.

import {
	TASKS,
	maxChannelVersion,
	type Checkpoint,
	type CheckpointMetadata,
	type CheckpointTuple,
	type SerializerProtocol
} from '@langchain/langgraph-checkpoint';
import { unpack } from '../../checkpoint/blob.js';
import { fromInline, type ChannelMap } from '../../checkpoint/channel-map.js';
import type { ItemCache } from '../../checkpoint/item-cache.js';
import { channelMapOf, skeletonBytes } from '../../checkpoint/row-encoding.js';
import { LINK, isLink, linkTarget } from '../../checkpoint/link-encoding.js';
import { checkpointSql, type CheckpointRow, type ItemRow, type Queryable, type WriteRow } from './store.js';

type Skeleton = Omit<Checkpoint, 'id' | 'channel_values'>;

export class TupleReader {
	constructor(
		private readonly db: Queryable,
		private readonly cache: ItemCache,
		private readonly serde: SerializerProtocol,
		/** The saver's getNextVersion(undefined), for a TASKS channel rebuilt from old checkpoints. */
		private readonly firstVersion: () => number | string
	) {}

	async tuples(rows: readonly CheckpointRow[]): Promise<CheckpointTuple[]> {
		const maps = rows.map((row) => channelMapOf(row));
		const origins = await this.referencedMaps(rows, maps);
		const items = await this.prefetchItems(rows, maps);
		// One row after another: the first to decode a log's items caches them for the rest.
		const tuples: CheckpointTuple[] = [];
		for (const [i, row] of rows.entries()) tuples.push(await this.tuple(row, maps[i]!, origins, items));
		return tuples;
	}

	/** Maps of the checkpoints the batch's `r` entries point at, by thread key and checkpoint id. */
	private async referencedMaps(rows: readonly CheckpointRow[], maps: readonly ChannelMap[]) {
		const known = new Map(rows.map((row, i) => [`${row.thread_key}/${row.checkpoint_id}`, maps[i]!]));
		const missing = new Map<number, Set<string>>();
		rows.forEach((row, i) => {
			for (const entry of Object.values(maps[i]!)) {
				if (!('r' in entry) || known.has(`${row.thread_key}/${entry.r}`)) continue;
				missing.set(row.thread_key, (missing.get(row.thread_key) ?? new Set()).add(entry.r));
			}
		});
		for (const [threadKey, ids] of missing) {
			for (const [id, stored] of await checkpointSql.channelMaps(this.db, threadKey, [...ids])) {
				known.set(`${threadKey}/${id}`, channelMapOf(stored));
			}
		}
		return known;
	}

	/** Reads, in one query, every item the batch reaches that the cache does not hold. */
	private async prefetchItems(rows: readonly CheckpointRow[], maps: readonly ChannelMap[]) {
		const reach = new Map<number, number>();
		const reaches = (logId: number, length: number) => reach.set(logId, Math.max(reach.get(logId) ?? 0, length));
		maps.forEach((map, i) => {
			for (const entry of Object.values(map)) if ('s' in entry) for (const [logId, length] of entry.s) reaches(logId, length);
			for (const write of rows[i]!.writes) {
				if (!isLink(write.encoding)) continue;
				const { logId, seq, count } = linkTarget(write);
				reaches(logId, seq + count);
			}
		});
		const ranges = [...reach]
			.map(([logId, to]) => ({ logId, from: this.cache.peek(logId)?.length ?? 0, to }))
			.filter((range) => range.from < range.to);
		const fetched = new Map<number, Map<number, ItemRow>>();
		for (const item of await checkpointSql.items(this.db, ranges)) {
			if (!fetched.has(item.log_id)) fetched.set(item.log_id, new Map());
			fetched.get(item.log_id)!.set(item.seq, item);
		}
		return fetched;
	}

	private async tuple(
		row: CheckpointRow,
		map: ChannelMap,
		origins: Map<string, ChannelMap>,
		fetched: Map<number, Map<number, ItemRow>>
	): Promise<CheckpointTuple> {
		const prefix = (logId: number, length: number) =>
			this.cache.prefix(logId, length, (from, to) => this.loadItems(logId, from, to, fetched.get(logId)));
		const values: Record<string, unknown> = {};
		for (const [channel, entry] of Object.entries(map)) {
			if ('v' in entry) values[channel] = await this.decodeInline(entry.v);
			else if ('s' in entry) {
				let items: unknown[] = [];
				for (const [logId, length] of entry.s) items = items.concat(await prefix(logId, length));
				values[channel] = items;
			} else if ('l' in entry) {
				// Value links are the SQLite store's (checkpoint/write-links.ts); this saver never writes one.
				throw new Error(`checkpoint store: "${channel}" of checkpoint ${row.checkpoint_id} is a value link`);
			} else {
				const stored = origins.get(`${row.thread_key}/${entry.r}`)?.[channel];
				if (stored === undefined || !('v' in stored)) {
					throw new Error(`checkpoint store: "${channel}" of checkpoint ${entry.r} (thread ${row.thread_id}) is missing`);
				}
				values[channel] = await this.decodeInline(stored.v);
			}
		}
		const pendingWrites = await Promise.all(
			row.writes.map(async (write): Promise<[string, string, unknown]> => {
				if (!isLink(write.encoding)) return [write.task_id, write.channel, await this.decode(write)];
				const { logId, seq, count } = linkTarget(write);
				const items = (await prefix(logId, seq + count)).slice(seq);
				return [write.task_id, write.channel, write.encoding === LINK.ITEM ? items[0] : items];
			})
		);
		const skeleton = (await this.serde.loadsTyped(row.type, skeletonBytes(row))) as Skeleton;
		const { v, ts, ...rest } = skeleton;
		const checkpoint: Checkpoint = { v, id: row.checkpoint_id, ts, channel_values: values, ...rest };
		const parentId = row.parent_checkpoint_id;
		if (checkpoint.v < 4 && parentId !== null) await this.migratePendingSends(checkpoint, row.thread_key, parentId);
		const configOf = (id: string) => ({
			configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: id }
		});
		return {
			config: configOf(row.checkpoint_id),
			checkpoint,
			metadata: (await this.serde.loadsTyped(row.type, Buffer.from(row.metadata))) as CheckpointMetadata,
			parentConfig: parentId === null ? undefined : configOf(parentId),
			pendingWrites
		};
	}

	/**
	 * Items from..to-1 of a log: from the batch's prefetch, or from the database when the cache lost
	 * entries between the prefetch and now (another reader's load evicted them).
	 */
	private async loadItems(logId: number, from: number, to: number, fetched?: Map<number, ItemRow>): Promise<unknown[]> {
		let rows: ItemRow[] = [];
		for (let seq = from; seq < to; seq += 1) {
			const row = fetched?.get(seq);
			if (row === undefined) break;
			rows.push(row);
		}
		if (rows.length < to - from) rows = await checkpointSql.items(this.db, [{ logId, from, to }]);
		if (rows.length !== to - from) throw new Error(`checkpoint store: log ${logId} lacks items ${from}..${to - 1}`);
		return Promise.all(rows.map((row) => this.decode(row)));
	}

	private decode(value: Pick<WriteRow, 'type' | 'value' | 'encoding'>): Promise<unknown> {
		return this.serde.loadsTyped(value.type, unpack(value.value, value.encoding));
	}

	private decodeInline(value: readonly [string, string]): Promise<unknown> {
		return this.serde.loadsTyped(value[0], fromInline(value));
	}

	/** Checkpoints before format v4 kept pending sends in the parent's TASKS writes (as the stock savers do). */
	private async migratePendingSends(checkpoint: Checkpoint, threadKey: number, parentId: string): Promise<void> {
		const sends = await checkpointSql.channelWrites(this.db, threadKey, parentId, TASKS);
		checkpoint.channel_values[TASKS] = await Promise.all(sends.map((write) => this.decode(write)));
		const versions = Object.values(checkpoint.channel_versions);
		checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.firstVersion();
	}
}
