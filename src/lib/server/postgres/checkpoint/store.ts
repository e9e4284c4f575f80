// SQL access to the PostgreSQL lg_* tables (migrations.ts), shared by the saver, its reader and its
// log writer. Each method is one statement, so callers count round trips by counting calls;
// callers run the ones that must be atomic on one transaction's client.

import type pg from 'pg';
import { heldRun, RunFencedError } from '../app/run-fence.js';
import { named } from '../named-statement.js';

/** A pool or one of its connections: whatever runs a statement. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** The run a write belongs to and the instance that must own it (app/run-fence.ts heldRun). */
export interface RunFence {
	runId: string;
	owner: string;
}

/** A serialised value as stored: serde type, bytes, and how the bytes are encoded (blob.ts). */
export interface StoredValue {
	type: string;
	value: Buffer;
	encoding: number;
}

export interface WriteRow extends StoredValue {
	task_id: string;
	channel: string;
}

export interface CheckpointRow {
	thread_key: number;
	thread_id: string;
	checkpoint_ns: string;
	checkpoint_id: string;
	parent_checkpoint_id: string | null;
	type: string;
	/** The serialised skeleton, encoded with `encoding`. */
	checkpoint: Buffer;
	/** JSON text (from jsonb). */
	metadata: string;
	/** JSON ChannelMap, encoded with `encoding`. */
	channels: Buffer;
	encoding: number;
	/** Pending writes, in the order LangGraph applies a superstep's writes (task_path, task_id, idx). */
	writes: WriteRow[];
}

export interface ItemRow extends StoredValue {
	log_id: number;
	seq: number;
}

export interface NewWrite extends StoredValue {
	idx: number;
	channel: string;
}

export interface ListQuery {
	threadId?: string;
	ns?: string;
	checkpointId?: string;
	before?: string;
	/** Matched with jsonb containment (@>), as the stock PostgresSaver does. */
	filter?: Record<string, unknown>;
	limit?: number;
}

type RawRow = Omit<CheckpointRow, 'writes'> & {
	w_task_ids: string[] | null;
	w_channels: string[] | null;
	w_types: string[] | null;
	w_values: Buffer[] | null;
	w_encodings: number[] | null;
};

// writesSortKey order (task_path, task_id, idx), aggregated so a page of checkpoints arrives with
// its pending writes in one round trip.
const WRITE_ORDER = 'ORDER BY w.task_path, w.task_id, w.idx';
const CHECKPOINT_COLUMNS = `c.thread_key, t.thread_id, t.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.type,
	c.checkpoint, c.metadata::text AS metadata, c.channels, c.encoding`;

/**
 * The checkpoints `selected` (a query of CHECKPOINT_COLUMNS from lg_checkpoints c and lg_threads
 * t), newest first, each with its pending writes. The writes are joined to the selected rows only:
 * joined before an ORDER BY … LIMIT, they would be aggregated for every checkpoint of the thread.
 */
const withWrites = (selected: string) => `
	SELECT c.*, w.w_task_ids, w.w_channels, w.w_types, w.w_values, w.w_encodings
	FROM (${selected}) c
	CROSS JOIN LATERAL (
		SELECT array_agg(w.task_id ${WRITE_ORDER}) AS w_task_ids, array_agg(w.channel ${WRITE_ORDER}) AS w_channels,
		       array_agg(w.type ${WRITE_ORDER}) AS w_types, array_agg(w.value ${WRITE_ORDER}) AS w_values,
		       array_agg(w.encoding ${WRITE_ORDER}) AS w_encodings
		FROM lg_writes w WHERE w.thread_key = c.thread_key AND w.checkpoint_id = c.checkpoint_id
	) w
	ORDER BY c.checkpoint_id DESC`;

// The thread key as a value, so the planner reads the newest checkpoint from the end of the primary
// key (thread_key, checkpoint_id) rather than sorting the thread's rows.
const ONE_THREAD = `FROM lg_checkpoints c JOIN lg_threads t USING (thread_key)
	WHERE c.thread_key = (SELECT thread_key FROM lg_threads WHERE thread_id = $1 AND checkpoint_ns = $2)`;

const LATEST_ROW = withWrites(`SELECT ${CHECKPOINT_COLUMNS} ${ONE_THREAD} ORDER BY c.checkpoint_id DESC LIMIT 1`);
const ONE_ROW = withWrites(`SELECT ${CHECKPOINT_COLUMNS} ${ONE_THREAD} AND c.checkpoint_id = $3`);

/**
 * Creating a thread row can lose a race to another connection creating it, and the next statement
 * sees the winner's row; only a thread deleted as fast as it is created could need more tries.
 */
export const RACE_ATTEMPTS = 3;

function toRow(raw: RawRow): CheckpointRow {
	const { w_task_ids: taskIds, w_channels: channels, w_types: types, w_values: values, w_encodings: encodings, ...row } = raw;
	const writes = (taskIds ?? []).map((task_id, i) => ({
		task_id,
		channel: channels![i]!,
		type: types![i]!,
		value: values![i]!,
		encoding: encodings![i]!
	}));
	return { ...row, writes };
}

export const checkpointSql = {
	/** The checkpoint `checkpointId` of a thread's namespace, or its latest. */
	async row(q: Queryable, threadId: string, ns: string, checkpointId?: string): Promise<CheckpointRow | undefined> {
		const { rows } = await q.query<RawRow>(
			checkpointId === undefined
				? named('sophos_checkpoint_latest', LATEST_ROW, [threadId, ns])
				: named('sophos_checkpoint_row', ONE_ROW, [threadId, ns, checkpointId])
		);
		return rows[0] && toRow(rows[0]);
	},

	/** Newest first. Like the stock PostgresSaver, any limit given applies, 0 included. */
	async list(q: Queryable, query: ListQuery): Promise<CheckpointRow[]> {
		const where: string[] = [];
		const args: unknown[] = [];
		const add = (clause: (n: string) => string, value: unknown) => {
			args.push(value);
			where.push(clause(`$${args.length}`));
		};
		if (query.threadId !== undefined) add((n) => `t.thread_id = ${n}`, query.threadId);
		if (query.ns !== undefined) add((n) => `t.checkpoint_ns = ${n}`, query.ns);
		if (query.checkpointId !== undefined) add((n) => `c.checkpoint_id = ${n}`, query.checkpointId);
		if (query.before !== undefined) add((n) => `c.checkpoint_id < ${n}`, query.before);
		if (query.filter !== undefined && Object.keys(query.filter).length > 0) {
			add((n) => `c.metadata @> ${n}::jsonb`, JSON.stringify(query.filter));
		}
		let selected = `SELECT ${CHECKPOINT_COLUMNS} FROM lg_checkpoints c JOIN lg_threads t USING (thread_key)`;
		if (where.length > 0) selected += ` WHERE ${where.join(' AND ')}`;
		selected += ' ORDER BY c.checkpoint_id DESC';
		if (query.limit !== undefined) {
			args.push(Math.trunc(query.limit));
			selected += ` LIMIT $${args.length}`;
		}
		const { rows } = await q.query<RawRow>(withWrites(selected), args);
		return rows.map(toRow);
	},

	/** Channel maps of checkpoints that others reference (ChannelMap `r` entries). */
	async channelMaps(q: Queryable, threadKey: number, ids: readonly string[]) {
		const { rows } = await q.query<{ checkpoint_id: string; channels: Buffer; encoding: number }>(
			`SELECT checkpoint_id, channels, encoding FROM lg_checkpoints WHERE thread_key = $1 AND checkpoint_id = ANY($2)`,
			[threadKey, ids]
		);
		return new Map(rows.map((row) => [row.checkpoint_id, row]));
	},

	/** Items from <= seq < to of each range, ordered by log and position. */
	async items(q: Queryable, ranges: readonly { logId: number; from: number; to: number }[]): Promise<ItemRow[]> {
		if (ranges.length === 0) return [];
		const { rows } = await q.query<ItemRow>(
			`SELECT i.log_id, i.seq, i.type, i.value, i.encoding
			 FROM unnest($1::int[], $2::int[], $3::int[]) AS r(log_id, lo, hi)
			 JOIN lg_log_items i ON i.log_id = r.log_id AND i.seq >= r.lo AND i.seq < r.hi
			 ORDER BY i.log_id, i.seq`,
			[ranges.map((r) => r.logId), ranges.map((r) => r.from), ranges.map((r) => r.to)]
		);
		return rows;
	},

	/** Writes of one checkpoint to one channel, for write links. */
	async channelWrites(q: Queryable, threadKey: number, checkpointId: string, channel: string) {
		const { rows } = await q.query<WriteRow & { idx: number }>(
			`SELECT task_id, idx, channel, type, value, encoding FROM lg_writes
			 WHERE thread_key = $1 AND checkpoint_id = $2 AND channel = $3 ORDER BY task_path, task_id, idx`,
			[threadKey, checkpointId, channel]
		);
		return rows;
	},

	/**
	 * One statement: the thread row is created if it is new, then the writes inserted. Special
	 * writes (errors, interrupts, resume values) replace earlier ones; regular writes are kept on
	 * retry, the rule of the stock savers. With a fence, nothing is written unless its run is held,
	 * checked in the same statement (RunFencedError). Returns the idx of each write stored (a
	 * regular write already there is not).
	 */
	async insertWrites(
		q: Queryable,
		thread: { threadId: string; ns: string; checkpointId: string; taskId: string; taskPath: string },
		writes: readonly NewWrite[],
		replace: boolean,
		fence?: RunFence
	): Promise<number[]> {
		const column = <K extends keyof NewWrite>(key: K) => writes.map((write) => write[key]);
		const conflict = replace
			? `DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, value = EXCLUDED.value,
			   encoding = EXCLUDED.encoding, task_path = EXCLUDED.task_path`
			: 'DO NOTHING';
		const statement = `
			WITH held AS (SELECT ${fence ? `EXISTS (${heldRun('$11', '$12')})` : 'true'} AS held),
			existing AS (SELECT thread_key FROM lg_threads WHERE thread_id = $1 AND checkpoint_ns = $2 AND (SELECT held FROM held)),
			created AS (
				INSERT INTO lg_threads (thread_id, checkpoint_ns) SELECT $1, $2
				WHERE NOT EXISTS (SELECT 1 FROM existing) AND (SELECT held FROM held)
				ON CONFLICT DO NOTHING RETURNING thread_key
			),
			thread AS (SELECT thread_key FROM existing UNION ALL SELECT thread_key FROM created),
			written AS (
				INSERT INTO lg_writes (thread_key, checkpoint_id, task_id, idx, channel, type, value, encoding, task_path)
				SELECT thread.thread_key, $3, $4, w.idx, w.channel, w.type, w.value, w.encoding, $5
				FROM thread, unnest($6::int[], $7::text[], $8::text[], $9::bytea[], $10::smallint[]) AS w(idx, channel, type, value, encoding)
				ON CONFLICT (thread_key, checkpoint_id, task_id, idx) ${conflict}
				RETURNING idx
			)
			SELECT (SELECT count(*)::int FROM thread) AS threads, (SELECT held FROM held) AS held,
			       (SELECT coalesce(array_agg(idx), '{}') FROM written) AS written`;
		const args = [
			thread.threadId,
			thread.ns,
			thread.checkpointId,
			thread.taskId,
			thread.taskPath,
			column('idx'),
			column('channel'),
			column('type'),
			column('value'),
			column('encoding'),
			...(fence ? [fence.runId, fence.owner] : [])
		];
		// No thread row seen: a concurrent first write created it after this statement's snapshot.
		// The next statement sees it.
		for (let attempt = 0; attempt < RACE_ATTEMPTS; attempt += 1) {
			const { rows } = await q.query<{ threads: number; held: boolean; written: number[] }>(named('sophos_pending_writes', statement, args));
			if (!rows[0]!.held) throw new RunFencedError(fence!.runId);
			if (rows[0]!.threads > 0) return rows[0]!.written;
		}
		throw new Error(`checkpoint store: thread ${thread.threadId} is created and deleted concurrently`);
	},

	/** Deletes every namespace of a thread with all it holds; returns the ids of the removed logs. */
	async deleteThread(q: Queryable, threadId: string): Promise<number[]> {
		const { rows } = await q.query<{ log_id: number }>(
			`WITH gone AS (DELETE FROM lg_threads WHERE thread_id = $1 RETURNING thread_key)
			 SELECT log_id FROM lg_logs WHERE thread_key IN (SELECT thread_key FROM gone)`,
			[threadId]
		);
		return rows.map((row) => row.log_id);
	}
};
