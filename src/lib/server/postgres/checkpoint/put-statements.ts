// The statements of one put's transaction: lock the thread, read what the put builds on, then
// write everything in one statement; or, for a put planned ahead, the lock and a write guarded by
// what the plan took the thread to be, in one flight. Fewer round trips is most of a put's cost on
// PostgreSQL.

import type pg from 'pg';
import { heldRun, RunFencedError } from '../app/run-fence.js';
import { named } from '../named-statement.js';
import { andCommit, transactInOneTrip } from '../transaction.js';
import { RACE_ATTEMPTS, type CheckpointRow, type ItemRow, type Queryable, type RunFence, type WriteRow } from './store.js';

export interface ParentRow extends Pick<CheckpointRow, 'type' | 'checkpoint' | 'channels' | 'encoding'> {
	/** The parent's pending writes, which the put may turn into links. */
	writes: (WriteRow & { idx: number })[];
}

export interface LockedThread {
	threadKey: number;
	/** The parent checkpoint, if asked for and stored. */
	parent?: ParentRow;
	/** Length of every log of the thread (few: one, plus one per fork or non-appending change). */
	logLengths: Map<number, number>;
}

export interface Relink {
	taskId: string;
	idx: number;
	value: Buffer;
	encoding: number;
}

export interface CheckpointWrite {
	threadKey: number;
	checkpointId: string;
	parentId: string | null;
	type: string;
	checkpoint: Uint8Array;
	/** JSON text, stored as jsonb. */
	metadata: string;
	channels: Uint8Array;
	encoding: number;
	/** New log items, and the length each log they extend reaches. */
	items: readonly ItemRow[];
	logLengths: readonly { logId: number; length: number }[];
	/** Pending writes of the parent stored as links from now on (write-links.ts). */
	relinks: readonly Relink[];
	/** Pending writes of the parent that commit with the put (step-writes.ts), as stored: a link where the put's items hold one. */
	writes: readonly StepWrite[];
	rider?: PutRider;
}

export interface StepWrite extends Relink {
	channel: string;
	type: string;
	taskPath: string;
}

/**
 * What a put planned ahead (early-plans.ts) took the thread to be: its write statement stores
 * nothing unless the thread still is so, its parent stored alike and each log it asked about as
 * long, and the run still held. Checked in the write statement itself, sent with the lock in one
 * flight; a statement after the lock sees every commit made before the lock was had.
 */
export interface PutGuard {
	threadId: string;
	ns: string;
	fence?: RunFence;
	parent: { type: string; checkpoint: Uint8Array; channels: Uint8Array; encoding: number };
	/** Each log the plan asked about, and its length then (undefined: there was no such log). */
	logLengths: ReadonlyMap<number, number | undefined>;
}

/**
 * A data-modifying statement (INSERT, UPDATE, DELETE) that commits with a put, run as a CTE of the
 * put's write statement: `sql` is given the placeholders of `params`, in order, and a condition
 * the statement must add to its WHERE clause (false where a put planned ahead finds the thread
 * changed, PutGuard, and stores nothing).
 */
export interface PutRider {
	sql: (placeholders: string[], when: string) => string;
	params: unknown[];
}

type RawLock = {
	thread_key: number;
	type: string | null;
	checkpoint: Buffer | null;
	channels: Buffer | null;
	encoding: number | null;
	w_task_ids: string[] | null;
	w_idxs: number[] | null;
	w_channels: string[] | null;
	w_types: string[] | null;
	w_values: Buffer[] | null;
	w_encodings: number[] | null;
	log_ids: number[] | null;
	lengths: number[] | null;
};

// NO KEY UPDATE: puts to the thread wait for each other, while inserting writes (whose foreign key
// check takes KEY SHARE on the thread row) does not wait for a put. The run's fence (when the put
// is a run's) in the same statement. Named, so each connection plans it once; sent with the
// transaction's BEGIN and the read after it (transaction.ts sendTogether): one round trip (issue 26).
const LOCK_THREAD = `SELECT true AS held,
	(SELECT thread_key FROM lg_threads WHERE thread_id = $1 AND checkpoint_ns = $2 FOR NO KEY UPDATE) AS thread_key`;
const LOCK_THREAD_FENCED = `SELECT EXISTS (${heldRun('$3', '$4')}) AS held,
	(SELECT thread_key FROM lg_threads WHERE thread_id = $1 AND checkpoint_ns = $2 FOR NO KEY UPDATE) AS thread_key`;

function lockThread(threadId: string, ns: string, fence: RunFence | undefined): pg.QueryConfig {
	return fence ? named('sophos_put_lock', LOCK_THREAD_FENCED, [threadId, ns, fence.runId, fence.owner]) : named('sophos_put_lock', LOCK_THREAD, [threadId, ns]);
}

type LockRow = { held: boolean; thread_key: number | null };

// A statement of its own, after the lock: a statement that waits for a row lock reads everything
// but that row as of before the wait, so tips read with the lock could miss the last put's append.
// Sent with BEGIN and the lock, the thread by its id (its key is not known yet); by key when the
// lock is tried again.
const readThreadSql = (thread: string, parent: string) => `
	SELECT t.thread_key, p.type, p.checkpoint, p.channels, p.encoding,
	       w.w_task_ids, w.w_idxs, w.w_channels, w.w_types, w.w_values, w.w_encodings, l.log_ids, l.lengths
	FROM lg_threads t
	LEFT JOIN lg_checkpoints p ON p.thread_key = t.thread_key AND p.checkpoint_id = ${parent}
	CROSS JOIN LATERAL (
		SELECT array_agg(w.task_id) AS w_task_ids, array_agg(w.idx) AS w_idxs, array_agg(w.channel) AS w_channels,
		       array_agg(w.type) AS w_types, array_agg(w.value) AS w_values, array_agg(w.encoding) AS w_encodings
		FROM lg_writes w WHERE w.thread_key = t.thread_key AND w.checkpoint_id = ${parent}
	) w
	CROSS JOIN LATERAL (
		SELECT array_agg(l.log_id) AS log_ids, array_agg(l.length) AS lengths FROM lg_logs l WHERE l.thread_key = t.thread_key
	) l
	WHERE ${thread}`;
const READ_THREAD = readThreadSql('t.thread_key = $1', '$2::text');
const READ_THREAD_BY_ID = readThreadSql('t.thread_id = $1 AND t.checkpoint_ns = $2', '$3::text');

function toLocked(raw: RawLock): LockedThread {
	const logIds = raw.log_ids ?? [];
	const parent: ParentRow | undefined =
		raw.type === null
			? undefined
			: {
					type: raw.type,
					checkpoint: raw.checkpoint!,
					channels: raw.channels!,
					encoding: raw.encoding!,
					writes: (raw.w_task_ids ?? []).map((task_id, i) => ({
						task_id,
						idx: raw.w_idxs![i]!,
						channel: raw.w_channels![i]!,
						type: raw.w_types![i]!,
						value: raw.w_values![i]!,
						encoding: raw.w_encodings![i]!
					}))
				};
	return { threadKey: raw.thread_key, parent, logLengths: new Map(logIds.map((id, i) => [id, raw.lengths![i]!])) };
}

export const putSql = {
	/**
	 * Locks the thread's row until the transaction ends (creating it if new), so puts to one thread
	 * run one at a time across every connection and process, and reads the parent and log tips.
	 * With a fence, first holds its run (run-fence.ts heldRun) or throws RunFencedError. The first
	 * lock and read are `lockOpening`'s, sent with BEGIN; their results are `opened`.
	 */
	lockOpening: (threadId: string, ns: string, parentId: string | undefined, fence: RunFence | undefined): pg.QueryConfig[] => [
		lockThread(threadId, ns, fence),
		named('sophos_put_read', READ_THREAD_BY_ID, [threadId, ns, parentId ?? null])
	],

	async lockThread(
		client: pg.PoolClient,
		opened: pg.QueryResult[],
		thread: { threadId: string; ns: string; parentId?: string; fence?: RunFence }
	): Promise<LockedThread> {
		const { threadId, ns, parentId, fence } = thread;
		for (let attempt = 0; attempt < RACE_ATTEMPTS; attempt += 1) {
			const first = attempt === 0 && opened.length === 2;
			const found = first ? opened[0]! : await client.query<LockRow>(lockThread(threadId, ns, fence));
			const row = found.rows[0] as LockRow;
			if (!row.held) throw new RunFencedError(fence!.runId);
			if (row.thread_key !== null) {
				const read = first ? opened[1]! : await client.query<RawLock>(named('sophos_put_read', READ_THREAD, [row.thread_key, parentId ?? null]));
				return toLocked(read.rows[0]!);
			}
			// A concurrent first put inserts the same row: ON CONFLICT waits for it, then the loop locks it.
			const created = await client.query<{ thread_key: number }>(
				`INSERT INTO lg_threads (thread_id, checkpoint_ns) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING thread_key`,
				[threadId, ns]
			);
			if (created.rows[0]) return { threadKey: created.rows[0].thread_key, logLengths: new Map() };
		}
		throw new Error(`checkpoint store: thread ${threadId} is created and deleted concurrently`);
	},

	/** The rows of a thread's namespace, newest first, without their writes (for version scans). */
	async threadRows(q: Queryable, threadKey: number) {
		const { rows } = await q.query<Pick<CheckpointRow, 'checkpoint_id' | 'type' | 'checkpoint' | 'channels' | 'encoding'>>(
			`SELECT checkpoint_id, type, checkpoint, channels, encoding FROM lg_checkpoints
			 WHERE thread_key = $1 ORDER BY checkpoint_id DESC`,
			[threadKey]
		);
		return rows;
	},

	async createLogs(client: pg.PoolClient, threadKey: number, count: number): Promise<number[]> {
		if (count === 0) return [];
		const { rows } = await client.query<{ log_id: number }>(
			`INSERT INTO lg_logs (thread_key, length) SELECT $1, 0 FROM generate_series(1, $2) RETURNING log_id`,
			[threadKey, count]
		);
		return rows.map((row) => row.log_id).sort((a, b) => a - b);
	},

	/**
	 * The put's write and the COMMIT that ends its transaction, sent together (issue 26): one round
	 * trip on the pool; on an error the COMMIT rolls back and so does the caller.
	 */
	async writeAndCommit(client: pg.PoolClient, write: CheckpointWrite): Promise<void> {
		await andCommit(client, writeStatement(write));
	},

	/**
	 * A put planned ahead, whole in one flight (issue 26): BEGIN, the thread's lock (and its run's
	 * fence), the write guarded by what the plan took the thread to be, COMMIT. True if the guard
	 * held and the checkpoint is stored; false if nothing was; RunFencedError if the run is not held.
	 */
	async writeAtOnce(pool: pg.Pool, write: CheckpointWrite, guard: PutGuard): Promise<boolean> {
		const [locked, written] = await transactInOneTrip(pool, [lockThread(guard.threadId, guard.ns, guard.fence), writeStatement(write, guard)]);
		if (!(locked!.rows[0] as LockRow).held) throw new RunFencedError(guard.fence!.runId);
		return written!.rowCount === 1;
	}
};

/**
 * One statement: new items, the logs' lengths, the parent's writes that become links, the step's
 * writes that commit with the put, the rider, and the checkpoint row. Putting the same checkpoint
 * id again overwrites it, as the stock savers do. With a guard, each part writes only if it holds.
 */
function writeStatement(write: CheckpointWrite, guard?: PutGuard): pg.QueryConfig {
	const values: unknown[] = [];
	const $ = (value: unknown) => {
		values.push(value);
		return `$${values.length}`;
	};
	const items = (key: keyof ItemRow) => write.items.map((item) => item[key]);
	const relinks = (key: keyof Relink) => write.relinks.map((relink) => relink[key]);
	const writes = <K extends keyof StepWrite>(key: K) => write.writes.map((w) => w[key]);
	const [thread, parent, id] = [`${$(write.threadKey)}::int`, `${$(write.parentId)}::text`, `${$(write.checkpointId)}::text`];
	let guarding = '';
	let when = 'true';
	if (guard) {
		const logIds = [...guard.logLengths.keys()];
		guarding = `guard AS (SELECT ${guard.fence ? `EXISTS (${heldRun($(guard.fence.runId), $(guard.fence.owner))})` : 'true'}
				AND EXISTS (SELECT 1 FROM lg_threads WHERE thread_key = ${thread} AND thread_id = ${$(guard.threadId)}::text AND checkpoint_ns = ${$(guard.ns)}::text)
				AND EXISTS (SELECT 1 FROM lg_checkpoints p WHERE p.thread_key = ${thread} AND p.checkpoint_id = ${parent}
					AND p.type = ${$(guard.parent.type)}::text AND p.encoding = ${$(guard.parent.encoding)}::smallint
					AND p.checkpoint = ${$(guard.parent.checkpoint)}::bytea AND p.channels = ${$(guard.parent.channels)}::bytea)
				AND NOT EXISTS (SELECT 1 FROM unnest(${$(logIds)}::int[], ${$(logIds.map((log) => guard.logLengths.get(log) ?? null))}::int[]) AS g(log_id, length)
					LEFT JOIN lg_logs l ON l.log_id = g.log_id AND l.thread_key = ${thread} WHERE l.length IS DISTINCT FROM g.length) AS holds),
			`;
		when = '(SELECT holds FROM guard)';
	}
	const { rider } = write;
	const riding = rider ? `, rider AS (${rider.sql(rider.params.map($), when)})` : '';
	const text = `WITH ${guarding}added AS (
			INSERT INTO lg_log_items (log_id, seq, type, value, encoding)
			SELECT * FROM unnest(${$(items('log_id'))}::int[], ${$(items('seq'))}::int[], ${$(items('type'))}::text[], ${$(items('value'))}::bytea[], ${$(items('encoding'))}::smallint[])
			WHERE ${when}
		),
		grown AS (
			UPDATE lg_logs l SET length = g.length
			FROM unnest(${$(write.logLengths.map((log) => log.logId))}::int[], ${$(write.logLengths.map((log) => log.length))}::int[]) AS g(log_id, length)
			WHERE l.log_id = g.log_id AND ${when}
		),
		linked AS (
			UPDATE lg_writes w SET value = r.value, encoding = r.encoding
			FROM unnest(${$(relinks('taskId'))}::text[], ${$(relinks('idx'))}::int[], ${$(relinks('value'))}::bytea[], ${$(relinks('encoding'))}::smallint[]) AS r(task_id, idx, value, encoding)
			WHERE w.thread_key = ${thread} AND w.checkpoint_id = ${parent} AND w.task_id = r.task_id AND w.idx = r.idx AND ${when}
		),
		step_writes AS (
			INSERT INTO lg_writes (thread_key, checkpoint_id, task_id, idx, channel, type, value, encoding, task_path)
			SELECT ${thread}, ${parent}, w.* FROM unnest(${$(writes('taskId'))}::text[], ${$(writes('idx'))}::int[], ${$(writes('channel'))}::text[],
				${$(writes('type'))}::text[], ${$(writes('value'))}::bytea[], ${$(writes('encoding'))}::smallint[], ${$(writes('taskPath'))}::text[])
				AS w(task_id, idx, channel, type, value, encoding, task_path)
			WHERE ${when}
			ON CONFLICT (thread_key, checkpoint_id, task_id, idx) DO NOTHING
		)${riding}
		INSERT INTO lg_checkpoints (thread_key, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata, channels, encoding)
		SELECT ${thread}, ${id}, ${parent}, ${$(write.type)}::text, ${$(write.checkpoint)}::bytea, ${$(write.metadata)}::jsonb, ${$(write.channels)}::bytea, ${$(write.encoding)}::smallint
		WHERE ${when}
		ON CONFLICT (thread_key, checkpoint_id) DO UPDATE SET parent_checkpoint_id = EXCLUDED.parent_checkpoint_id,
		  type = EXCLUDED.type, checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata,
		  channels = EXCLUDED.channels, encoding = EXCLUDED.encoding
		RETURNING 1`;
	return named(guard ? 'sophos_put_write_guarded' : 'sophos_put_write', text, values);
}
