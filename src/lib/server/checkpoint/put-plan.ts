// One put of a checkpoint, planned without a database: which channels the child inherits from its
// parent, which it stores inline, where the new items of its array channels go in the item logs,
// and, with write-links.ts, which of the parent's pending writes (and, on SQLite, inline values)
// become links to those items. Both savers (sqlite/checkpoint/saver.ts, postgres/checkpoint/saver.ts)
// call it; each keeps only its SQL, its transaction, and the reads it supplies through PutReads.
//
// A put runs in three steps: plan() (async: serialising, and comparing the child's arrays with the
// parent's items), place() once the saver has created the new logs (sync), then writeLinks() on
// the parent's writes. The saver writes what they return and, after commit, calls remember().

import type { ChannelVersions, Checkpoint, CheckpointMetadata, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { pack, unpack, type Encoding } from './blob.js';
import { planChannels, toInline, type ChannelMap, type ParentInfo } from './channel-map.js';
import type { ItemCache } from './item-cache.js';
import { channelMapOf, skeletonBytes } from './row-encoding.js';
import {
	itemsToWrite,
	needsNewLog,
	planLogWrite,
	segmentsAfter,
	totalLength,
	type AppliedLogWrite,
	type LogPlan,
	type Segment
} from './segments.js';

/** A serialised value as stored: serde type, bytes, and how the bytes are encoded (blob.ts). */
export interface StoredItem {
	type: string;
	value: Uint8Array;
	encoding: number;
}

/** What a checkpoint row holds that the plan reads: the skeleton and channel map. */
export interface SkeletonRow {
	type: string;
	checkpoint: Uint8Array;
	channels: Uint8Array | string;
	encoding: number;
}

/** The engine's reads, in the put's transaction where it has one. */
export interface PutReads {
	/** How far log `logId` has been appended to (by any branch), undefined if there is no such log. */
	logLength(logId: number): number | undefined;
	/** The stored items of these ranges (from <= seq < to), in any order. */
	items(ranges: readonly { logId: number; from: number; to: number }[]): Promise<(StoredItem & { log_id: number; seq: number })[]>;
	/** Every checkpoint row of the thread's namespace: the rare scan for a channel version. */
	threadRows(): Promise<Iterable<SkeletonRow>>;
}

export interface PutInput {
	checkpoint: Checkpoint;
	metadata: CheckpointMetadata;
	newVersions: ChannelVersions;
	parent: ParentInfo | undefined;
	/** The checkpoint's channels the saver keeps (all, or only versioned ones on PostgreSQL). */
	channels: readonly string[];
}

/** An array channel's new items, planned. `newLog`: the saver creates a log for them. */
export interface PlannedLog {
	channel: string;
	plan: LogPlan;
	parentSegments?: readonly Segment[];
	childLength: number;
	newLog: boolean;
	items: StoredItem[];
	objects: unknown[];
	bytes: Uint8Array[];
	/** The items' one serde type, or undefined when they differ or there are none (nothing to link). */
	type?: string;
}

export interface PutPlan {
	id: string;
	type: string;
	skeleton: Uint8Array;
	metadata: Uint8Array;
	/** Every channel's entry but those held in logs, which place() adds. */
	entries: ChannelMap;
	logs: PlannedLog[];
	/** The checkpoint's channels in its key order, so values read back serialise like the stock saver's. */
	order: string[];
}

export interface PlacedLog extends AppliedLogWrite {
	items: StoredItem[];
}

type Skeleton = Omit<Checkpoint, 'id' | 'channel_values'>;

export class PutPlanner {
	constructor(
		private readonly serde: SerializerProtocol,
		private readonly cache: ItemCache,
		private readonly maxSegments: number
	) {}

	/** The parent as the plan needs it, from its stored row. */
	async parent(id: string, row: SkeletonRow): Promise<ParentInfo & { encoding: Encoding }> {
		const skeleton = (await this.serde.loadsTyped(row.type, skeletonBytes(row))) as Skeleton;
		return { id, map: channelMapOf(row), versions: skeleton.channel_versions, encoding: row.encoding as Encoding };
	}

	async plan(input: PutInput, reads: PutReads): Promise<PutPlan> {
		const { checkpoint, metadata, newVersions, parent } = input;
		const { id, channel_values: values, ...fields } = checkpoint;
		const [[type, skeleton], [metadataType, metadataBytes]] = await Promise.all([
			this.serde.dumpsTyped(fields),
			this.serde.dumpsTyped(metadata)
		]);
		if (type !== metadataType) throw new Error('Failed to serialize checkpoint and metadata to the same type.');
		const channels = planChannels(input.channels, checkpoint.channel_versions, newVersions, parent);
		if (channels.unresolved.length > 0) {
			channels.changed.push(...(await this.storedAtVersion(reads, channels.unresolved, checkpoint.channel_versions)));
		}
		const entries = channels.inherited;
		const arrays: { channel: string; value: unknown[]; parentSegments?: readonly Segment[] }[] = [];
		for (const channel of channels.changed) {
			const value = values[channel];
			if (Array.isArray(value)) {
				const parentEntry = parent?.map[channel];
				arrays.push({ channel, value, parentSegments: parentEntry && 's' in parentEntry ? parentEntry.s : undefined });
			} else {
				const [valueType, bytes] = await this.serde.dumpsTyped(value);
				entries[channel] = { v: toInline(valueType, bytes) };
			}
		}
		const extend = await this.extendsParents(reads, arrays);
		const logs = await Promise.all(
			arrays.map(async ({ channel, value, parentSegments }, i): Promise<PlannedLog> => {
				const last = parentSegments?.[parentSegments.length - 1];
				const plan = planLogWrite({
					parentSegments,
					extendsParent: extend[i]!,
					childLength: value.length,
					tipLength: last === undefined ? undefined : reads.logLength(last[0]),
					maxSegments: this.maxSegments
				});
				const { start, end } = itemsToWrite(plan, parentSegments, value.length);
				const objects = value.slice(start, end);
				const serialised = await Promise.all(objects.map((item) => this.serde.dumpsTyped(item)));
				const types = new Set(serialised.map(([itemType]) => itemType));
				return {
					channel,
					plan,
					parentSegments,
					childLength: value.length,
					newLog: needsNewLog(plan, value.length),
					items: serialised.map(([itemType, bytes]) => ({ type: itemType, ...pack(bytes) })),
					objects,
					bytes: serialised.map(([, bytes]) => bytes),
					type: types.size === 1 ? [...types][0] : undefined
				};
			})
		);
		return { id, type, skeleton, metadata: metadataBytes, entries, logs, order: Object.keys(values) };
	}

	/**
	 * Where each planned log's items go, given the logs the saver created for those with `newLog`
	 * (in plan order), and the child's channel map.
	 */
	place(plan: PutPlan, newLogIds: readonly number[]): { placed: PlacedLog[]; map: ChannelMap } {
		const fresh = [...newLogIds];
		const placed = plan.logs.map((log): PlacedLog => {
			const logId = log.plan.kind === 'append' ? log.plan.logId : log.newLog ? fresh.shift() : undefined;
			const from = log.plan.kind === 'append' ? log.plan.from : 0;
			const segments = segmentsAfter(log.plan, log.parentSegments, log.childLength, logId);
			const { channel, objects, bytes, type, items } = log;
			return { channel, segments, logId, from, objects, bytes, type, items };
		});
		const entries: ChannelMap = { ...plan.entries };
		for (const { channel, segments } of placed) entries[channel] = { s: segments };
		const map: ChannelMap = {};
		for (const channel of plan.order) if (entries[channel]) map[channel] = entries[channel];
		return { placed, map };
	}

	/** After commit: the new items join the cache, so the next put compares them by identity. */
	remember(placed: readonly AppliedLogWrite[]): void {
		for (const log of placed) if (log.logId !== undefined) this.cache.append(log.logId, log.from, log.objects);
	}

	/**
	 * Per array: whether the parent's items are a prefix of the child's. Items the cache holds are
	 * compared by identity (LangGraph passes the same message objects from step to step); the rest
	 * by their serialised bytes, read in one call, so an in-place replacement (same id, new content)
	 * is caught.
	 */
	private async extendsParents(
		reads: PutReads,
		arrays: readonly { value: unknown[]; parentSegments?: readonly Segment[] }[]
	): Promise<boolean[]> {
		const unconfirmed = arrays.map(({ value, parentSegments }) => {
			if (parentSegments === undefined || value.length < totalLength(parentSegments)) return undefined;
			const checks: { logId: number; seq: number; item: unknown }[] = [];
			let position = 0;
			for (const [logId, length] of parentSegments) {
				const cached = this.cache.peek(logId);
				for (let seq = 0; seq < length; seq += 1, position += 1) {
					if (cached === undefined || seq >= cached.length || cached[seq] !== value[position]) {
						checks.push({ logId, seq, item: value[position] });
					}
				}
			}
			return checks;
		});
		const ranges = new Map<number, { logId: number; from: number; to: number }>();
		for (const check of unconfirmed.flat()) {
			if (check === undefined) continue;
			const range = ranges.get(check.logId);
			ranges.set(check.logId, {
				logId: check.logId,
				from: Math.min(range?.from ?? check.seq, check.seq),
				to: Math.max(range?.to ?? check.seq + 1, check.seq + 1)
			});
		}
		const stored = new Map<string, StoredItem>();
		if (ranges.size > 0) for (const row of await reads.items([...ranges.values()])) stored.set(`${row.log_id}/${row.seq}`, row);
		return Promise.all(
			unconfirmed.map(async (checks) => {
				if (checks === undefined) return false;
				for (const { logId, seq, item } of checks) {
					const row = stored.get(`${logId}/${seq}`);
					if (row === undefined) return false;
					const [type, bytes] = await this.serde.dumpsTyped(item);
					if (type !== row.type || !Buffer.from(bytes).equals(unpack(row.value, row.encoding))) return false;
				}
				return true;
			})
		);
	}

	/**
	 * The unresolved channels (channel-map.ts) whose version some checkpoint of the thread stores:
	 * a version-keyed saver, as the stock ones are, would find them. Rare (a `__copy__` update).
	 */
	private async storedAtVersion(reads: PutReads, channels: readonly string[], versions: ChannelVersions): Promise<string[]> {
		const found = new Set<string>();
		for (const row of await reads.threadRows()) {
			const map = channelMapOf(row);
			const candidates = channels.filter((channel) => !found.has(channel) && channel in map);
			if (candidates.length === 0) continue;
			const skeleton = (await this.serde.loadsTyped(row.type, skeletonBytes(row))) as Skeleton;
			for (const channel of candidates) if (skeleton.channel_versions[channel] === versions[channel]) found.add(channel);
		}
		return channels.filter((channel) => found.has(channel));
	}
}
