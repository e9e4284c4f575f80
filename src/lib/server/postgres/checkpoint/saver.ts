// A LangGraph checkpoint saver on PostgreSQL with the delta layout of the SQLite store
// (checkpoint/): array channels (messages) are appended to item logs, other channels stored when
// they change, and a step's pending message writes become links to the items that hold them, so
// each message is stored once. Reads back what the stock PostgresSaver does.

import type pg from 'pg';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
	BaseCheckpointSaver,
	WRITES_IDX_MAP,
	copyCheckpoint,
	type ChannelVersions,
	type Checkpoint,
	type CheckpointListOptions,
	type CheckpointMetadata,
	type CheckpointTuple,
	type PendingWrite,
	type SerializerProtocol
} from '@langchain/langgraph-checkpoint';
import { pack, unpack } from '../../checkpoint/blob.js';
import { planChannels, toInline, type ChannelMap, type ParentInfo } from '../../checkpoint/channel-map.js';
import { ItemCache } from '../../checkpoint/item-cache.js';
import { channelMapOf, encodeTogether, skeletonBytes } from '../../checkpoint/row-encoding.js';
import { DEFAULT_MAX_SEGMENTS } from '../../checkpoint/segments.js';
import { matchItems } from '../../checkpoint/write-link-bytes.js';
import { LINK, isLink } from '../../checkpoint/link-encoding.js';
import { inTransaction } from '../transaction.js';
import type { AppliedLogWrite } from '../../checkpoint/segments.js';
import { LogWriter, type ArrayValue } from './log-writer.js';
import { TupleReader } from './reader.js';
import { putSql, type ParentRow, type Relink } from './put-statements.js';
import { checkpointSql } from './store.js';
import { putTarget, writesTarget } from '../../checkpoint/saver-config.js';

export interface DeltaPostgresSaverOptions {
	serde?: SerializerProtocol;
	/**
	 * Most segments an array value may span before it is stored whole again; bounds the range
	 * reads per channel when reading any checkpoint. Segments only multiply on forks.
	 */
	maxSegments?: number;
	/** Decoded items kept in memory across calls (checkpoint/item-cache.ts); 0 disables. */
	cacheItems?: number;
	/**
	 * Called inside each put's transaction, on its connection, once the checkpoint is written: what
	 * must commit with it (a branch head following its branch, postgres/app/branch-storage.ts
	 * advanceBranchHead). A throw rolls the put back.
	 */
	onPut?: (client: pg.PoolClient, put: { threadId: string; ns: string; checkpointId: string; parentId: string | undefined }) => Promise<void>;
	/**
	 * Called first in the transaction of each put and putWrites, with the call's config: a throw
	 * refuses the write (a run this instance no longer owns, postgres/app/run-leases.ts holdRun).
	 */
	fence?: (client: pg.PoolClient, config: RunnableConfig) => Promise<void>;
}

type Skeleton = Omit<Checkpoint, 'id' | 'channel_values'>;

/**
 * Needs the tables of migratePostgres(pool). Several savers (several processes) may share one
 * database: puts to one thread take its row lock, so they run one at a time, and log items are
 * never rewritten, so each process's item cache stays valid.
 */
export class DeltaPostgresSaver extends BaseCheckpointSaver {
	private readonly cache: ItemCache;
	private readonly reader: TupleReader;
	private readonly logs: LogWriter;
	private readonly onPut: DeltaPostgresSaverOptions['onPut'];
	private readonly fence: DeltaPostgresSaverOptions['fence'];
	/**
	 * putWrites calls not yet committed, per thread and namespace. LangGraph does not wait for a
	 * step's writes before it puts the next checkpoint; that put waits for them, so it finds the
	 * message writes it can link (and so a step's messages are stored once).
	 */
	private readonly writesInFlight = new Map<string, Set<Promise<void>>>();

	constructor(
		private readonly pool: pg.Pool,
		options: DeltaPostgresSaverOptions = {}
	) {
		super(options.serde);
		const { maxSegments = DEFAULT_MAX_SEGMENTS, cacheItems = 10_000 } = options;
		if (!Number.isSafeInteger(maxSegments) || maxSegments < 1) throw new RangeError('maxSegments must be >= 1');
		if (!(cacheItems >= 0)) throw new RangeError('cacheItems must be >= 0');
		this.cache = new ItemCache(cacheItems);
		this.reader = new TupleReader(pool, this.cache, this.serde, () => this.getNextVersion(undefined));
		this.logs = new LogWriter(this.cache, this.serde, maxSegments);
		this.onPut = options.onPut;
		this.fence = options.fence;
	}

	async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
		const threadId = config.configurable?.thread_id as string | undefined;
		if (threadId === undefined) return undefined;
		const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
		const checkpointId = (config.configurable?.checkpoint_id as string | undefined) || undefined;
		const row = await checkpointSql.row(this.pool, threadId, ns, checkpointId);
		return row === undefined ? undefined : (await this.reader.tuples([row]))[0];
	}

	async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
		const configurable = config.configurable ?? {};
		const rows = await checkpointSql.list(this.pool, {
			threadId: (configurable.thread_id as string | undefined) || undefined,
			ns: (configurable.checkpoint_ns as string | null | undefined) ?? undefined,
			checkpointId: (configurable.checkpoint_id as string | undefined) || undefined,
			before: options?.before?.configurable?.checkpoint_id as string | undefined,
			filter: options?.filter,
			limit: options?.limit
		});
		// Decoded a page at a time, each page's missing items in one query, so the decoded items
		// held at once are a page's, however long the history.
		for (let start = 0; start < rows.length; start += LIST_PAGE) {
			for (const tuple of await this.reader.tuples(rows.slice(start, start + LIST_PAGE))) yield tuple;
		}
	}

	async put(
		config: RunnableConfig,
		checkpoint: Checkpoint,
		metadata: CheckpointMetadata,
		newVersions: ChannelVersions
	): Promise<RunnableConfig> {
		const target = putTarget(config);
		const { threadId, ns } = target;
		const parentId = target.parentId || undefined;
		const { id, channel_values: values, ...fields } = copyCheckpoint(checkpoint);
		const [[type, skeleton], [metadataType, metadataBytes]] = await Promise.all([
			this.serde.dumpsTyped(fields),
			this.serde.dumpsTyped(metadata)
		]);
		if (type !== metadataType) throw new Error('Failed to serialize checkpoint and metadata to the same type.');
		if (type !== 'json') throw new Error(`DeltaPostgresSaver keeps metadata as jsonb and needs a JSON serde, got "${type}"`);
		await Promise.allSettled(this.writesInFlight.get(threadKeyOf(threadId, ns)) ?? []);

		const applied = await inTransaction(this.pool, async (client) => {
			await this.fence?.(client, config);
			const locked = await putSql.lockThread(client, threadId, ns, parentId);
			const parent = locked.parent && (await this.parentInfo(parentId!, locked.parent));
			// Only versioned channels, as the stock PostgresSaver (values keyed by version) reads back:
			// LangGraph's unversioned `__pregel_tasks: []`, or an input checkpoint's empty `messages`.
			const versioned = Object.keys(values).filter((channel) => checkpoint.channel_versions[channel] !== undefined);
			const plan = planChannels(versioned, checkpoint.channel_versions, newVersions, parent);
			if (plan.unresolved.length > 0) {
				plan.changed.push(...(await this.storedVersions(client, locked.threadKey, plan.unresolved, checkpoint)));
			}
			const entries: ChannelMap = plan.inherited;
			const arrays: ArrayValue[] = [];
			for (const channel of plan.changed) {
				const value = values[channel];
				if (Array.isArray(value)) {
					const parentEntry = parent?.map[channel];
					arrays.push({ channel, value, parentSegments: parentEntry && 's' in parentEntry ? parentEntry.s : undefined });
				} else {
					const [valueType, bytes] = await this.serde.dumpsTyped(value);
					entries[channel] = { v: toInline(valueType, bytes) };
				}
			}
			const logs = await this.logs.prepare(client, locked.threadKey, arrays, locked.logLengths);
			for (const write of logs.applied) entries[write.channel] = { s: write.segments };
			// In the checkpoint's key order, so values read back serialise exactly like the stock saver's.
			const map: ChannelMap = {};
			for (const channel of Object.keys(values)) if (entries[channel]) map[channel] = entries[channel];
			await putSql.writeCheckpoint(client, {
				threadKey: locked.threadKey,
				checkpointId: id,
				parentId: parentId ?? null,
				type,
				metadata: Buffer.from(metadataBytes).toString('utf8'),
				...encodeTogether({ checkpoint: skeleton, channels: Buffer.from(JSON.stringify(map)) }),
				items: logs.items,
				logLengths: logs.logLengths,
				relinks: locked.parent ? parentLinks(locked.parent.writes, logs.applied) : []
			});
			await this.onPut?.(client, { threadId, ns, checkpointId: id, parentId });
			return logs.applied;
		});
		this.logs.remember(applied);
		return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: id } };
	}

	async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
		const { threadId, ns, checkpointId } = writesTarget(config);
		const rows = await Promise.all(
			writes.map(async ([channel, value], idx) => {
				const [type, bytes] = await this.serde.dumpsTyped(value);
				const { value: packed, encoding } = pack(bytes);
				return { idx: WRITES_IDX_MAP[channel] ?? idx, channel, type, value: Buffer.from(packed), encoding };
			})
		);
		const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
		const key = threadKeyOf(threadId, ns);
		const inFlight = this.writesInFlight.get(key) ?? new Set();
		this.writesInFlight.set(key, inFlight);
		const thread = { threadId, ns, checkpointId, taskId, taskPath: taskPath ?? '' };
		const fence = this.fence;
		const insert = fence
			? inTransaction(this.pool, async (client) => {
					await fence(client, config);
					await checkpointSql.insertWrites(client, thread, rows, replace);
				})
			: checkpointSql.insertWrites(this.pool, thread, rows, replace);
		inFlight.add(insert);
		try {
			await insert;
		} finally {
			inFlight.delete(insert);
			if (inFlight.size === 0) this.writesInFlight.delete(key);
		}
	}

	/**
	 * Forgetting cached items is only tidiness: an item's (log, seq) is never reused, so a cache
	 * (this process's or another's) can only hold entries nobody asks for again.
	 */
	async deleteThread(threadId: string): Promise<void> {
		this.cache.forget(await checkpointSql.deleteThread(this.pool, threadId));
	}

	private async parentInfo(parentId: string, row: ParentRow): Promise<ParentInfo> {
		const skeleton = (await this.serde.loadsTyped(row.type, skeletonBytes(row))) as Skeleton;
		return { id: parentId, map: channelMapOf(row), versions: skeleton.channel_versions };
	}

	/**
	 * The unresolved channels (checkpoint/channel-map.ts) whose version some checkpoint of the
	 * thread stores: a version-keyed saver, as the stock PostgresSaver is, would find them. Rare
	 * (a `__copy__` update), so a scan of the thread.
	 */
	private async storedVersions(client: pg.PoolClient, threadKey: number, channels: readonly string[], checkpoint: Checkpoint) {
		const found = new Set<string>();
		for (const row of await putSql.threadRows(client, threadKey)) {
			const map = channelMapOf(row);
			const candidates = channels.filter((channel) => !found.has(channel) && channel in map);
			if (candidates.length === 0) continue;
			const skeleton = (await this.serde.loadsTyped(row.type, skeletonBytes(row))) as Skeleton;
			for (const channel of candidates) {
				if (skeleton.channel_versions[channel] === checkpoint.channel_versions[channel]) found.add(channel);
			}
		}
		return channels.filter((channel) => found.has(channel));
	}
}

/** The parent's writes that equal items the put appends, as links to them (write-links.ts). */
function parentLinks(writes: ParentRow['writes'], applied: readonly AppliedLogWrite[]): Relink[] {
	const relinks: Relink[] = [];
	for (const { channel, logId, type, from, bytes } of applied) {
		if (logId === undefined || type === undefined) continue;
		for (const write of writes) {
			if (write.channel !== channel || write.type !== type || isLink(write.encoding)) continue;
			const match = matchItems(unpack(write.value, write.encoding), bytes);
			if (match === undefined) continue;
			const seq = from + match.start;
			const link = match.array ? [logId, seq, match.count] : [logId, seq];
			relinks.push({ taskId: write.task_id, idx: write.idx, value: Buffer.from(JSON.stringify(link)), encoding: match.array ? LINK.ITEMS : LINK.ITEM });
		}
	}
	return relinks;
}

const threadKeyOf = (threadId: string, ns: string) => JSON.stringify([threadId, ns]);

/** Rows of list() decoded per item query. */
const LIST_PAGE = 100;
