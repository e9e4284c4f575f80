// A LangGraph checkpoint saver on the app's better-sqlite3 connection that stores array channels
// (messages) as appended suffixes instead of re-storing the whole history at every checkpoint.
// Layout: sqlite/migrations.ts (tables), channel-map.ts (per-channel entries), segments.ts (item logs);
// what a put stores is planned by checkpoint/put-plan.ts, shared with the PostgreSQL saver.

import type Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
	BaseCheckpointSaver,
	TASKS,
	WRITES_IDX_MAP,
	copyCheckpoint,
	getCheckpointId,
	maxChannelVersion,
	type ChannelVersions,
	type Checkpoint,
	type CheckpointListOptions,
	type CheckpointMetadata,
	type CheckpointTuple,
	type PendingWrite,
	type SerializerProtocol
} from '@langchain/langgraph-checkpoint';
import { pack } from '../../checkpoint/blob.js';
import { ItemCache } from '../../checkpoint/item-cache.js';
import { PutPlanner, type PutReads } from '../../checkpoint/put-plan.js';
import { valueLinks, writeLinks } from '../../checkpoint/write-links.js';
import { ChannelReader } from './reader.js';
import { DEFAULT_MAX_SEGMENTS } from '../../checkpoint/segments.js';
import { channelMapOf, encodeCheckpoint, metadataOf, skeletonBytes } from '../../checkpoint/row-encoding.js';
import { CheckpointStore, type CheckpointRow, type WriteRow } from './store.js';
import { writeBytes } from './write-links.js';
import { putTarget, writesTarget } from '../../checkpoint/saver-config.js';
import { HandedOver, type HandsOverLatest } from '../../checkpoint/handed-over.js';

export interface DeltaSqliteSaverOptions {
	serde?: SerializerProtocol;
	/**
	 * Most segments an array value may span before it is stored whole again; bounds the range
	 * reads per channel when reading any checkpoint. Segments only multiply on forks.
	 */
	maxSegments?: number;
	/** Decoded items kept in memory across calls (see item-cache.ts); 0 disables. */
	cacheItems?: number;
	/**
	 * Called inside the transaction that stores each checkpoint, so what it writes commits or rolls
	 * back with the checkpoint (the app moves a branch's head here). It must be synchronous.
	 */
	onPut?: (put: { threadId: string; ns: string; checkpointId: string; parentId: string | undefined }) => void;
}

type Skeleton = Omit<Checkpoint, 'id' | 'channel_values'>;

export class DeltaSqliteSaver extends BaseCheckpointSaver implements HandsOverLatest {
	private readonly store: CheckpointStore;
	private readonly cache: ItemCache;
	private readonly reader: ChannelReader;
	private readonly planner: PutPlanner;
	private readonly onPut: DeltaSqliteSaverOptions['onPut'];
	/** Puts run one at a time so a log's tip cannot move between planning and writing. */
	private queue: Promise<unknown> = Promise.resolve();
	private readonly handed = new HandedOver();

	constructor(db: Database.Database, options: DeltaSqliteSaverOptions = {}) {
		super(options.serde);
		const { maxSegments = DEFAULT_MAX_SEGMENTS, cacheItems = 10_000 } = options;
		if (!Number.isSafeInteger(maxSegments) || maxSegments < 1) throw new RangeError('maxSegments must be >= 1');
		if (!(cacheItems >= 0)) throw new RangeError('cacheItems must be >= 0');
		const tables = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'lg_threads'`).get();
		if (tables === undefined) {
			throw new Error('checkpoint store: migrate the database (sqlite/migrations.ts) before creating the saver');
		}
		this.store = new CheckpointStore(db);
		this.cache = new ItemCache(cacheItems);
		this.reader = new ChannelReader(this.store, this.cache, this.serde);
		this.planner = new PutPlanner(this.serde, this.cache, maxSegments);
		this.onPut = options.onPut;
	}

	handOver(threadId: string, tuple: CheckpointTuple | undefined): () => void {
		return this.handed.handOver(threadId, tuple);
	}

	async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
		const handed = this.handed.take(config);
		if (handed) return handed.tuple;
		const threadId = config.configurable?.thread_id as string | undefined;
		if (threadId === undefined) return undefined;
		const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
		const checkpointId = getCheckpointId(config);
		const row = checkpointId ? this.store.row(threadId, ns, checkpointId) : this.store.latestRow(threadId, ns);
		if (row === undefined) return undefined;
		// Like the stock saver: the caller's config is returned as given when it names the checkpoint.
		return this.toTuple(row, checkpointId ? config : undefined);
	}

	async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
		const ns = config.configurable?.checkpoint_ns as string | null | undefined;
		const rows = this.store.list({
			threadId: config.configurable?.thread_id as string | undefined,
			ns: ns ?? undefined,
			before: options?.before?.configurable?.checkpoint_id as string | undefined,
			filter: options?.filter,
			limit: options?.limit
		});
		for (const row of rows) yield await this.toTuple(row);
	}

	async put(
		config: RunnableConfig,
		checkpoint: Checkpoint,
		metadata: CheckpointMetadata,
		newVersions: ChannelVersions
	): Promise<RunnableConfig> {
		const { threadId, ns, parentId } = putTarget(config);
		this.handed.drop(threadId);
		const copy = copyCheckpoint(checkpoint);
		const run = this.queue.then(() => this.putNow(threadId, ns, parentId, copy, metadata, newVersions));
		this.queue = run.catch(() => undefined);
		await run;
		return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
	}

	async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
		const { threadId, ns, checkpointId } = writesTarget(config);
		this.handed.drop(threadId);
		const rows = await Promise.all(
			writes.map(async ([channel, value], idx) => {
				const [type, bytes] = await this.serde.dumpsTyped(value);
				return { taskId, idx: WRITES_IDX_MAP[channel] ?? idx, channel, type, ...pack(bytes), taskPath: taskPath ?? '' };
			})
		);
		const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
		this.store.db.transaction(() => this.store.insertWrites(threadId, ns, checkpointId, rows, replace))();
	}

	async deleteThread(threadId: string): Promise<void> {
		this.deleteThreadSync(threadId);
	}

	/**
	 * `deleteThread` for a caller that deletes other rows of the thread in the same transaction (it
	 * nests as a savepoint). Forgetting cached items before that transaction commits is harmless:
	 * an item's (log, seq) is never reused, so the cache can only lose entries, never serve wrong ones.
	 */
	deleteThreadSync(threadId: string): void {
		this.handed.drop(threadId);
		const logIds = this.store.db.transaction(() => this.store.deleteThread(threadId))();
		this.cache.forget(logIds);
	}

	private async putNow(
		threadId: string,
		ns: string,
		parentId: string | undefined,
		checkpoint: Checkpoint,
		metadata: CheckpointMetadata,
		newVersions: ChannelVersions
	): Promise<void> {
		const parentRow = parentId === undefined ? undefined : this.store.row(threadId, ns, parentId);
		const parent = parentRow && (await this.planner.parent(parentId!, parentRow));
		const channels = Object.keys(checkpoint.channel_values);
		const plan = await this.planner.plan({ checkpoint, metadata, newVersions, parent, channels }, this.reads(threadId, ns));
		const placed = this.store.db.transaction(() => {
			for (const log of plan.logs) {
				// Another connection may have appended since the plan was made; never overwrite its items.
				if (log.plan.kind === 'append' && this.store.logLength(log.plan.logId) !== log.plan.from) {
					throw new Error(`checkpoint store: log ${log.plan.logId} of thread ${threadId} was appended to concurrently`);
				}
			}
			const newLogs = plan.logs.filter((log) => log.newLog).map(() => this.store.createLog(threadId, ns));
			const { placed, map } = this.planner.place(plan, newLogs);
			for (const log of placed) if (log.logId !== undefined) this.store.appendItems(log.logId, log.from, log.items);
			if (parent !== undefined) {
				for (const { write, value, encoding } of writeLinks(this.store.writes(threadId, ns, parent.id), placed)) {
					this.store.relinkWrite(threadId, ns, parent.id, write, value, encoding);
				}
				const linked = valueLinks(parent.map, placed);
				if (linked !== undefined) this.store.updateChannels(threadId, ns, parent.id, linked, parent.encoding);
			}
			this.store.insertCheckpoint({
				thread_id: threadId,
				checkpoint_ns: ns,
				checkpoint_id: plan.id,
				parent_checkpoint_id: parentId ?? null,
				type: plan.type,
				...encodeCheckpoint(plan.skeleton, map, plan.metadata)
			});
			this.onPut?.({ threadId, ns, checkpointId: plan.id, parentId });
			return placed;
		})();
		this.planner.remember(placed);
	}

	/** What the put planner reads, from this connection (puts run one at a time, see `queue`). */
	private reads(threadId: string, ns: string): PutReads {
		return {
			logLength: (logId) => this.store.logLength(logId),
			items: async (ranges) =>
				ranges.flatMap(({ logId, from, to }) => this.store.items(logId, from, to).map((item) => ({ ...item, log_id: logId }))),
			threadRows: async () => this.store.rowsOfThread(threadId, ns)
		};
	}

	private async toTuple(row: CheckpointRow, config?: RunnableConfig): Promise<CheckpointTuple> {
		const { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } = row;
		const parentId = row.parent_checkpoint_id;
		const skeleton = (await this.serde.loadsTyped(row.type, skeletonBytes(row))) as Skeleton;
		const channelValues = await this.reader.values(threadId, ns, channelMapOf(row));
		const { v, ts, ...rest } = skeleton;
		const checkpoint: Checkpoint = { v, id: checkpointId, ts, channel_values: channelValues, ...rest };
		const pendingWrites = await Promise.all(
			this.store
				.writes(threadId, ns, checkpointId)
				.map(async (w): Promise<[string, string, unknown]> => [w.task_id, w.channel, await this.loadWrite(w)])
		);
		if (checkpoint.v < 4 && parentId !== null) await this.migratePendingSends(checkpoint, threadId, ns, parentId);
		const configOf = (id: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: id } });
		return {
			config: config ?? configOf(checkpointId),
			checkpoint,
			metadata: (await this.serde.loadsTyped(row.type, metadataOf(row))) as CheckpointMetadata,
			parentConfig: parentId === null ? undefined : configOf(parentId),
			pendingWrites
		};
	}

	private loadWrite(write: WriteRow): Promise<unknown> {
		return this.serde.loadsTyped(write.type, writeBytes(this.store, write));
	}

	/** Checkpoints before format v4 kept pending sends in the parent's TASKS writes (as the stock saver does). */
	private async migratePendingSends(checkpoint: Checkpoint, threadId: string, ns: string, parentId: string) {
		const sends = this.store.writes(threadId, ns, parentId).filter((w) => w.channel === TASKS);
		checkpoint.channel_values[TASKS] = await Promise.all(sends.map((w) => this.loadWrite(w)));
		const versions = Object.values(checkpoint.channel_versions);
		checkpoint.channel_versions[TASKS] =
			versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
	}
}
