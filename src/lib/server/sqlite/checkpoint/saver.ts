// A LangGraph checkpoint saver on the app's better-sqlite3 connection that stores array channels
// (messages) as appended suffixes instead of re-storing the whole history at every checkpoint.
// Layout: sqlite/migrations.ts (tables), channel-map.ts (per-channel entries), segments.ts (item logs).

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
import { pack, type Encoding } from '../../checkpoint/blob.js';
import { planChannels, toInline, type ChannelMap, type ParentInfo } from '../../checkpoint/channel-map.js';
import { ItemCache } from '../../checkpoint/item-cache.js';
import { ChannelReader } from './reader.js';
import { DEFAULT_MAX_SEGMENTS } from '../../checkpoint/segments.js';
import { channelMapOf, encodeCheckpoint, metadataOf, skeletonBytes } from '../../checkpoint/row-encoding.js';
import { CheckpointStore, type CheckpointRow, type WriteRow } from './store.js';
import { LogWriter, type PreparedLogWrite } from './log-writer.js';
import { linkParentValues, linkParentWrites, writeBytes } from './write-links.js';
import { putTarget, writesTarget } from '../../checkpoint/saver-config.js';

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

export class DeltaSqliteSaver extends BaseCheckpointSaver {
	private readonly store: CheckpointStore;
	private readonly cache: ItemCache;
	private readonly reader: ChannelReader;
	private readonly logs: LogWriter;
	private readonly onPut: DeltaSqliteSaverOptions['onPut'];
	/** Puts run one at a time so a log's tip cannot move between planning and writing. */
	private queue: Promise<unknown> = Promise.resolve();

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
		this.logs = new LogWriter(this.store, this.cache, this.serde, maxSegments);
		this.onPut = options.onPut;
	}

	async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
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
		const copy = copyCheckpoint(checkpoint);
		const run = this.queue.then(() => this.putNow(threadId, ns, parentId, copy, metadata, newVersions));
		this.queue = run.catch(() => undefined);
		await run;
		return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
	}

	async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
		const { threadId, ns, checkpointId } = writesTarget(config);
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
		const { id, channel_values: values, ...fields } = checkpoint;
		const [[type, skeleton], [metadataType, metadataBytes]] = await Promise.all([
			this.serde.dumpsTyped(fields),
			this.serde.dumpsTyped(metadata)
		]);
		if (type !== metadataType) throw new Error('Failed to serialize checkpoint and metadata to the same type.');

		const parent = parentId === undefined ? undefined : await this.parentInfo(threadId, ns, parentId);
		const plan = planChannels(Object.keys(values), checkpoint.channel_versions, newVersions, parent);
		for (const channel of plan.unresolved) {
			const version = checkpoint.channel_versions[channel];
			if (await this.versionStored(threadId, ns, channel, version)) plan.changed.push(channel);
		}
		const entries: ChannelMap = plan.inherited;
		const logWrites: PreparedLogWrite[] = [];
		for (const channel of plan.changed) {
			const value = values[channel];
			if (Array.isArray(value)) {
				const parentEntry = parent?.map[channel];
				const parentSegments = parentEntry !== undefined && 's' in parentEntry ? parentEntry.s : undefined;
				logWrites.push(await this.logs.prepare(channel, value, parentSegments));
			} else {
				const [valueType, bytes] = await this.serde.dumpsTyped(value);
				entries[channel] = { v: toInline(valueType, bytes) };
			}
		}

		const applied = this.store.db.transaction(() => {
			const done = logWrites.map((write) => this.logs.apply(threadId, ns, write));
			for (const { channel, segments, logId, from, bytes, type: itemType } of done) {
				entries[channel] = { s: segments };
				if (parent === undefined || logId === undefined || itemType === undefined) continue;
				const written = { logId, from, type: itemType, bytes };
				linkParentWrites(this.store, threadId, ns, parent.id, channel, written);
				linkParentValues(this.store, threadId, ns, parent, written);
			}
			// In the checkpoint's key order, so values read back serialise exactly like the stock saver's.
			const map: ChannelMap = {};
			for (const channel of Object.keys(values)) if (entries[channel]) map[channel] = entries[channel];
			this.store.insertCheckpoint({
				thread_id: threadId,
				checkpoint_ns: ns,
				checkpoint_id: id,
				parent_checkpoint_id: parentId ?? null,
				type,
				...encodeCheckpoint(skeleton, map, metadataBytes)
			});
			this.onPut?.({ threadId, ns, checkpointId: id, parentId });
			return done;
		})();
		for (const done of applied) this.logs.remember(done);
	}

	private async parentInfo(
		threadId: string,
		ns: string,
		parentId: string
	): Promise<(ParentInfo & { encoding: Encoding }) | undefined> {
		const row = this.store.row(threadId, ns, parentId);
		if (row === undefined) return undefined;
		const skeleton = (await this.serde.loadsTyped(row.type, skeletonBytes(row))) as Skeleton;
		return { id: parentId, map: channelMapOf(row), versions: skeleton.channel_versions, encoding: row.encoding };
	}

	/** Whether any checkpoint of the thread holds `channel` at `version` (rare path, scans the thread). */
	private async versionStored(threadId: string, ns: string, channel: string, version: unknown): Promise<boolean> {
		for (const row of this.store.rowsOfThread(threadId, ns)) {
			if (!(channel in channelMapOf(row))) continue;
			const skeleton = (await this.serde.loadsTyped(row.type, skeletonBytes(row))) as Skeleton;
			if (skeleton.channel_versions[channel] === version) return true;
		}
		return false;
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
