// A LangGraph checkpoint saver on PostgreSQL with the delta layout of the SQLite store
// (checkpoint/): array channels (messages) are appended to item logs, other channels stored when
// they change, and a step's pending message writes become links to the items that hold them, so
// each message is stored once. Reads back what the stock PostgresSaver does. What a put stores is
// planned by checkpoint/put-plan.ts, shared with the SQLite saver; this file has the transaction.

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
import { pack } from '../../checkpoint/blob.js';
import { ItemCache } from '../../checkpoint/item-cache.js';
import { PutPlanner } from '../../checkpoint/put-plan.js';
import { writeLinks, type ParentWrite } from '../../checkpoint/write-links.js';
import { encodeTogether } from '../../checkpoint/row-encoding.js';
import { DEFAULT_MAX_SEGMENTS } from '../../checkpoint/segments.js';
import { inTransaction } from '../transaction.js';
import { TupleReader } from './reader.js';
import { putSql, type PutRider } from './put-statements.js';
import { EarlyPlans, isKeyOfThread, threadKeyOf } from './early-plans.js';
import { checkpointSql, type RunFence } from './store.js';
import { putTarget, writesTarget } from '../../checkpoint/saver-config.js';
import { HandedOver, type HandsOverLatest } from '../../checkpoint/handed-over.js';

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
	 * Called in each put's transaction, the thread locked, just before its write: what must commit
	 * with the checkpoint (a branch head following its branch, postgres/app/branch-storage.ts
	 * advanceBranchHead), as a data-modifying statement that goes into the put's one write
	 * statement, so it costs no round trip of its own (issue 26). A throw, or a failing rider,
	 * rolls the put back.
	 */
	onPut?: (put: { threadId: string; ns: string; checkpointId: string; parentId: string | undefined }) => Promise<PutRider | undefined>;
	/**
	 * The run a put or putWrites call belongs to, from its config, or undefined for a write outside
	 * a run: the run is checked in the statement that locks the thread or inserts the writes, and a
	 * run this instance no longer owns refuses the write with RunFencedError
	 * (postgres/app/run-fence.ts heldRun).
	 */
	fence?: (config: RunnableConfig) => RunFence | undefined;
}

/**
 * Needs the tables of migratePostgres(pool). Several savers (several processes) may share one
 * database: puts to one thread take its row lock, so they run one at a time, and log items are
 * never rewritten, so each process's item cache stays valid.
 */
export class DeltaPostgresSaver extends BaseCheckpointSaver implements HandsOverLatest {
	private readonly cache: ItemCache;
	private readonly reader: TupleReader;
	private readonly planner: PutPlanner;
	private readonly onPut: DeltaPostgresSaverOptions['onPut'];
	private readonly fence: DeltaPostgresSaverOptions['fence'];
	/**
	 * putWrites calls not yet committed, per thread and namespace. LangGraph does not wait for a
	 * step's writes before it puts the next checkpoint; that put waits for them, so it can link the
	 * message writes (and so a step's messages are stored once).
	 */
	private readonly writesInFlight = new Map<string, Set<WritesInFlight>>();
	/**
	 * Threads (and namespaces) this saver has seen stored. A put to one of them opens its
	 * transaction while the step's writes are still in flight and waits for them only before its
	 * write (issue 26: a round trip off each step's way). Neither side creates the thread row then,
	 * so neither waits on the other's lock; a put to a thread not known here waits first, as a
	 * write in flight may be creating the row its put would wait for.
	 */
	private readonly storedThreads = new Set<string>();
	private readonly handed = new HandedOver();
	/** Each thread's last put by this saver: what its next put plans from while its lock is on the way. */
	private readonly early: EarlyPlans;

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
		this.planner = new PutPlanner(this.serde, this.cache, maxSegments);
		this.early = new EarlyPlans(this.planner);
		this.onPut = options.onPut;
		this.fence = options.fence;
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
		this.handed.drop(threadId);
		const parentId = target.parentId || undefined;
		const copy = copyCheckpoint(checkpoint);
		const key = threadKeyOf(threadId, ns);
		// Each has asked the pool for its connection already (it is registered as it sends), so
		// waiting for one while holding a connection cannot starve it.
		const inFlight = [...(this.writesInFlight.get(key) ?? [])];
		const overlapped = this.storedThreads.has(key);
		if (!overlapped) await Promise.allSettled(inFlight.map((w) => w.written));

		const fence = this.fence?.(config);
		// Only versioned channels, as the stock PostgresSaver (values keyed by version) reads back:
		// LangGraph's unversioned `__pregel_tasks: []`, or an input checkpoint's empty `messages`.
		const channels = Object.keys(copy.channel_values).filter((channel) => copy.channel_versions[channel] !== undefined);
		const input = { checkpoint: copy, metadata, newVersions, channels };
		const early = this.early.begin(key, parentId, input);
		const stored = await inTransaction(
			this.pool,
			async (client, opened) => {
			const locked = await putSql.lockThread(client, opened, { threadId, ns, parentId, fence });
			const plan =
				(await this.early.usable(early, locked)) ??
				(await this.planner.plan(
					{ ...input, parent: locked.parent && (await this.planner.parent(parentId!, locked.parent)) },
					{
						logLength: (logId) => locked.logLengths.get(logId),
						items: (ranges) => checkpointSql.items(client, ranges),
						threadRows: () => putSql.threadRows(client, locked.threadKey)
					}
				));
			if (plan.type !== 'json') throw new Error(`DeltaPostgresSaver keeps metadata as jsonb and needs a JSON serde, got "${plan.type}"`);
			const newLogs = await putSql.createLogs(client, locked.threadKey, plan.logs.filter((log) => log.newLog).length);
			const { placed, map } = this.planner.place(plan, newLogs);
			const rider = await this.onPut?.({ threadId, ns, checkpointId: plan.id, parentId });
			// The writes still in flight as the put began must have committed before its write relinks them.
			const landedWrites = overlapped && locked.parent ? await landed(inFlight, parentId!) : [];
			const parentWrites = locked.parent ? withLanded(locked.parent.writes, landedWrites) : [];
			const row = { type: plan.type, ...encodeTogether({ checkpoint: plan.skeleton, channels: Buffer.from(JSON.stringify(map)) }) };
			const logLengths = placed.flatMap(({ logId, from, objects }) =>
				logId === undefined || objects.length === 0 ? [] : [{ logId, length: from + objects.length }]
			);
			await putSql.writeAndCommit(client, {
				threadKey: locked.threadKey,
				checkpointId: plan.id,
				parentId: parentId ?? null,
				metadata: Buffer.from(plan.metadata).toString('utf8'),
				...row,
				items: placed.flatMap(({ logId, from, items }) =>
					logId === undefined ? [] : items.map((item, k) => ({ log_id: logId, seq: from + k, ...item, value: asBuffer(item.value) }))
				),
				logLengths,
				relinks: writeLinks(parentWrites, placed).map(({ write, value, encoding }) => ({
					taskId: write.task_id,
					idx: write.idx,
					value,
					encoding
				})),
				rider
			});
			const lengths = new Map(locked.logLengths);
			for (const id of newLogs) lengths.set(id, 0);
			for (const log of logLengths) lengths.set(log.logId, log.length);
			return { placed, last: { checkpointId: plan.id, row, logLengths: lengths } };
			},
			{ opening: putSql.lockOpening(threadId, ns, parentId, fence), commitsItself: true }
		);
		this.planner.remember(stored.placed);
		this.early.remember(key, stored.last);
		this.storedThreads.add(key);
		return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
	}

	async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
		const { threadId, ns, checkpointId } = writesTarget(config);
		this.handed.drop(threadId);
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
		const entry: WritesInFlight = {
			checkpointId,
			written: checkpointSql.insertWrites(this.pool, thread, rows, replace, this.fence?.(config)).then((idxs) => {
				const stored = new Set(idxs);
				return rows.filter((row) => stored.has(row.idx)).map((row) => ({ ...row, task_id: taskId }));
			})
		};
		inFlight.add(entry);
		try {
			await entry.written;
			this.storedThreads.add(key);
		} finally {
			inFlight.delete(entry);
			if (inFlight.size === 0) this.writesInFlight.delete(key);
		}
	}

	/**
	 * Forgetting cached items is only tidiness: an item's (log, seq) is never reused, so a cache
	 * (this process's or another's) can only hold entries nobody asks for again.
	 */
	async deleteThread(threadId: string): Promise<void> {
		this.handed.drop(threadId);
		for (const key of this.storedThreads) if (isKeyOfThread(key, threadId)) this.storedThreads.delete(key);
		this.early.forgetThread(threadId);
		this.cache.forget(await checkpointSql.deleteThread(this.pool, threadId));
	}
}

/** A putWrites call sent: the writes it stored (a regular write already there is kept, not stored). */
type WritesInFlight = { checkpointId: string; written: Promise<ParentWrite[]> };

/** The writes to `parentId` of the calls in flight as a put began, once they have committed. */
async function landed(inFlight: readonly WritesInFlight[], parentId: string): Promise<ParentWrite[]> {
	const settled = await Promise.allSettled(inFlight.filter((w) => w.checkpointId === parentId).map((w) => w.written));
	return settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
}

/** The parent's writes as the put read them, and those that committed after its read. */
function withLanded(read: readonly ParentWrite[], landedWrites: readonly ParentWrite[]): ParentWrite[] {
	const seen = new Set(read.map((w) => `${w.task_id}\u0000${w.idx}`));
	return [...read, ...landedWrites.filter((w) => !seen.has(`${w.task_id}\u0000${w.idx}`))];
}

/** Rows of list() decoded per item query. */
const LIST_PAGE = 100;

/** pg sends a Buffer as bytea; the planner's items are Uint8Arrays (zlib's output, or the serde's). */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
