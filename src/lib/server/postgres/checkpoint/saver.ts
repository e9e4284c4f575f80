// A LangGraph checkpoint saver on PostgreSQL with the delta layout of the SQLite store
// (checkpoint/): array channels (messages) are appended to item logs, other channels stored when
// they change, and a step's pending message writes become links to the items that hold them, so
// each message is stored once. Reads back what the stock PostgresSaver does. What a put stores is
// planned by checkpoint/put-plan.ts, shared with the SQLite saver; this file has the transaction:
// a put planned ahead goes whole in one flight, the step's writes in it (issue 26).

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
import { PutPlanner, type PlacedLog, type PutInput, type PutPlan } from '../../checkpoint/put-plan.js';
import { DEFAULT_MAX_SEGMENTS } from '../../checkpoint/segments.js';
import { inTransaction } from '../transaction.js';
import { TupleReader } from './reader.js';
import { putSql, type CheckpointWrite, type PutRider } from './put-statements.js';
import { checkpointWrite, type ParentWrites, type PutAt, type PutTarget, type RidingWrite } from './put-write.js';
import { EarlyPlans, isKeyOfThread, threadKeyOf, type EarlyPlan, type LastPut } from './early-plans.js';
import { HeldWrites, PutsUnderWay, SentWrites, landed, ridingWrites, withLanded, type HeldCall, type WritesInFlight } from './step-writes.js';
import { checkpointSql, type NewWrite, type RunFence } from './store.js';
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
	 * Called for each put just before its write is sent: what must commit with the checkpoint (a
	 * branch head following its branch, postgres/app/branch-storage.ts advanceBranchHead), as a
	 * data-modifying statement that goes into the put's one write statement, so it costs no round
	 * trip of its own (issue 26). A throw, or a failing rider, rolls the put back.
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
	/** putWrites calls sent on their own, not yet committed: a put begun meanwhile waits for them to link their messages. */
	private readonly writesInFlight = new Map<string, Set<WritesInFlight>>();
	/**
	 * Threads (and namespaces) this saver has seen stored, whose row exists: a step's writes to one
	 * are held for its put, and a put to one opens its transaction while writes sent on their own
	 * are in flight, waiting for them only before its write (issue 26). A put to a thread not known
	 * here waits for them first, as they may be creating the row its lock would wait for.
	 */
	private readonly storedThreads = new Set<string>();
	private readonly handed = new HandedOver();
	/** Each thread's last put by this saver: what its next put plans ahead from. */
	private readonly early: EarlyPlans;
	/** Writes sent on their own that committed, for the put on their checkpoint to link. */
	private readonly sent = new SentWrites();
	private readonly putting = new PutsUnderWay();
	/** A step's writes waiting for the put that ends the step, to commit with it. */
	private readonly held = new HeldWrites(
		(key, call) => call.rows.then((rows) => this.send(key, { ...call, rows }, false)).then(call.resolve, call.reject),
		this.putting
	);

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
		const { threadId, ns, parentId } = putTarget(config);
		this.handed.drop(threadId);
		const key = threadKeyOf(threadId, ns);
		const at: PutTarget = { threadId, ns, parentId: parentId || undefined, fence: this.fence?.(config) };
		const riding = this.held.take(key, at.parentId, at.fence);
		const input = { checkpoint: copyCheckpoint(checkpoint), metadata, newVersions };
		try {
			await this.putting.track(key, checkpoint.id, ridingWrites(riding).then((writes) => this.store(key, at, input, writes)));
		} catch (error) {
			for (const call of riding) call.reject(error);
			throw error;
		}
		for (const call of riding) call.resolve();
		return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
	}

	/** The put's transaction; the step's `riding` writes commit with it. */
	private async store(key: string, target: PutTarget, { checkpoint, metadata, newVersions }: Omit<PutInput, 'parent' | 'channels'>, riding: RidingWrite[]) {
		const { threadId, ns, parentId, fence } = target;
		// Each has asked the pool for its connection already (it is registered as it sends), so
		// waiting for one while holding a connection cannot starve it.
		const inFlight = [...(this.writesInFlight.get(key) ?? [])];
		const sent = this.sent.take(key, parentId);
		const overlapped = this.storedThreads.has(key);
		if (!overlapped) await Promise.allSettled(inFlight.map((w) => w.written));
		// Only versioned channels, as the stock PostgresSaver (values keyed by version) reads back:
		// LangGraph's unversioned `__pregel_tasks: []`, or an input checkpoint's empty `messages`.
		const channels = Object.keys(checkpoint.channel_values).filter((channel) => checkpoint.channel_versions[channel] !== undefined);
		const input = { checkpoint, metadata, newVersions, channels };
		// With nothing of the thread in flight, a put planned ahead goes whole in one flight.
		let early = this.early.begin(key, parentId, input, inFlight.length === 0);
		if (early && inFlight.length === 0) {
			const stored = await this.storeAtOnce(early, target, { read: sent, riding });
			if (stored) return this.stored(key, stored);
			early = undefined;
		}
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
				const newLogs = await putSql.createLogs(client, locked.threadKey, plan.logs.filter((log) => log.newLog).length);
				// Writes in flight as the put began must have committed before its write relinks them.
				const landedWrites = overlapped && locked.parent ? await landed(inFlight, parentId!) : [];
				const read = locked.parent ? withLanded(locked.parent.writes, landedWrites) : [];
				const stored = await this.written(plan, newLogs, { threadKey: locked.threadKey, ...target }, { read, riding });
				await putSql.writeAndCommit(client, stored.write);
				const lengths = new Map(locked.logLengths);
				for (const id of newLogs) lengths.set(id, 0);
				return { ...stored, logLengths: lengths };
			},
			{ opening: putSql.lockOpening(threadId, ns, parentId, fence), commitsItself: true }
		);
		return this.stored(key, stored);
	}

	/** A put planned ahead, sent with its lock in one flight; undefined if the thread changed since the plan's last put (nothing was stored). */
	private async storeAtOnce(early: EarlyPlan, put: PutTarget, parentWrites: ParentWrites) {
		const guess = await early.guessed;
		if (!guess || guess.plan.logs.some((log) => log.newLog)) return undefined;
		const { last } = early;
		const stored = await this.written(guess.plan, [], { threadKey: last.threadKey, ...put }, parentWrites);
		const done = await putSql.writeAtOnce(this.pool, stored.write, { ...put, parent: last.row, logLengths: guess.asked });
		return done ? { ...stored, logLengths: new Map(last.logLengths) } : undefined;
	}

	/** The put's write for `plan` (put-write.ts), with what onPut has ride on it. */
	private async written(plan: PutPlan, newLogs: number[], at: PutAt, parentWrites: ParentWrites) {
		if (plan.type !== 'json') throw new Error(`DeltaPostgresSaver keeps metadata as jsonb and needs a JSON serde, got "${plan.type}"`);
		const placement = this.planner.place(plan, newLogs);
		const rider = await this.onPut?.({ threadId: at.threadId, ns: at.ns, checkpointId: plan.id, parentId: at.parentId });
		return { placed: placement.placed, ...checkpointWrite(plan, placement, at, parentWrites, rider) };
	}

	/** After a put committed: what the next put of the thread plans from. */
	private stored(key: string, stored: { placed: PlacedLog[]; write: CheckpointWrite; last: Omit<LastPut, 'logLengths'>; logLengths: Map<number, number> }) {
		for (const log of stored.write.logLengths) stored.logLengths.set(log.logId, log.length);
		this.planner.remember(stored.placed);
		this.early.remember(key, { ...stored.last, logLengths: stored.logLengths });
		this.storedThreads.add(key);
	}

	async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
		const { threadId, ns, checkpointId } = writesTarget(config);
		this.handed.drop(threadId);
		const rows = Promise.all(
			writes.map(async ([channel, value], idx) => {
				const [type, bytes] = await this.serde.dumpsTyped(value);
				const { value: packed, encoding } = pack(bytes);
				return { idx: WRITES_IDX_MAP[channel] ?? idx, channel, type, value: Buffer.from(packed), encoding };
			})
		);
		const key = threadKeyOf(threadId, ns);
		const call = { threadId, ns, checkpointId, taskId, taskPath: taskPath ?? '', fence: this.fence?.(config) };
		// Special writes (errors, interrupts, resume values) replace earlier ones and need no put to
		// follow; a thread not known stored may need its row created by the writes.
		const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
		if (replace || !this.storedThreads.has(key)) return this.send(key, { ...call, rows: await rows }, replace);
		// Held at once, while the writes are serialised: the put LangGraph calls next takes them.
		return new Promise((resolve, reject) => this.held.hold(key, { ...call, rows, resolve, reject }));
	}

	/** putWrites on its own: one statement, registered in flight until it has committed. */
	private async send(key: string, call: Omit<HeldCall, 'rows' | 'resolve' | 'reject'> & { rows: NewWrite[] }, replace: boolean): Promise<void> {
		const inFlight = this.writesInFlight.get(key) ?? new Set();
		this.writesInFlight.set(key, inFlight);
		const { threadId, ns, checkpointId, taskId, taskPath, rows } = call;
		const entry: WritesInFlight = {
			checkpointId,
			written: checkpointSql.insertWrites(this.pool, { threadId, ns, checkpointId, taskId, taskPath }, rows, replace, call.fence).then((idxs) => {
				const stored = new Set(idxs);
				return rows.filter((row) => stored.has(row.idx)).map((row) => ({ ...row, task_id: taskId }));
			})
		};
		inFlight.add(entry);
		try {
			const written = await entry.written;
			if (!replace) this.sent.add(key, checkpointId, written);
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
		// Written first, so no write held back lands after the delete and brings the thread back.
		await this.held.releaseWhere((key) => isKeyOfThread(key, threadId));
		for (const key of this.storedThreads) if (isKeyOfThread(key, threadId)) this.storedThreads.delete(key);
		this.early.forgetThread(threadId);
		this.sent.forget((key) => isKeyOfThread(key, threadId));
		this.cache.forget(await checkpointSql.deleteThread(this.pool, threadId));
	}
}

/** Rows of list() decoded per item query. */
const LIST_PAGE = 100;

