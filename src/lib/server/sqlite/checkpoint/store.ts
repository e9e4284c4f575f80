// SQL access to the lg_* tables (layout: migrations/integer-keys.ts), shared by the saver, the stock
// import and retention. Callers name threads and checkpoints by their ids; the integer keys the
// tables use for them stay in here. Synchronous (better-sqlite3): callers group calls into a
// transaction where they must be atomic. Checkpoint ids are stored packed (checkpoint/packed-uuid.ts):
// ids go in through packUuid and come out through unpackUuid, here and nowhere else but retention.ts,
// lineage.ts and the stock import.

import type Database from 'better-sqlite3';
import { encode, unpack, type Encoding } from '../../checkpoint/blob.js';
import type { ChannelMap } from '../../checkpoint/channel-map.js';
import { channelMapOf } from '../../checkpoint/row-encoding.js';
import { packUuid, unpackUuid } from '../../checkpoint/packed-uuid.js';
import { compareWrites, packTaskId, packTaskPath, unpackTaskId, unpackTaskPath } from '../../checkpoint/task-path.js';

export interface CheckpointRow {
	thread_id: string;
	checkpoint_ns: string;
	checkpoint_id: string;
	parent_checkpoint_id: string | null;
	type: string;
	/** The serialised skeleton, encoded with `encoding`. */
	checkpoint: Uint8Array;
	/** As serialised, encoded with `encoding`. */
	metadata: Uint8Array;
	/** JSON ChannelMap, encoded with `encoding` (text in rows written before encodings). */
	channels: Uint8Array | string;
	encoding: Encoding;
}

/** A serialised value as stored: serde type, bytes, and how the bytes are encoded (blob.ts). */
export interface StoredValue {
	type: string;
	value: Uint8Array;
	encoding: number;
}

export interface WriteRow {
	task_id: string;
	idx: number;
	channel: string;
	type: string;
	value: Buffer;
	/** blob.ts encodings, or a link to log items (write-links.ts). */
	encoding: number;
	task_path: string;
}

export interface NewWrite extends StoredValue {
	taskId: string;
	idx: number;
	channel: string;
	taskPath: string;
}

export interface ListQuery {
	threadId?: string;
	ns?: string;
	before?: string;
	/** Metadata key → value, compared as JSON like the stock saver. */
	filter?: Record<string, unknown>;
	limit?: number;
}

// A stored checkpoint (`c`, a row with a type) with its thread's ids (`t`) and its parent's id (`p`).
const ROWS = `SELECT t.thread_id, t.checkpoint_ns, c.checkpoint_id, p.checkpoint_id AS parent_checkpoint_id,
	  c.type, c.checkpoint, c.metadata, c.channels, c.encoding
	FROM lg_checkpoints c JOIN lg_threads t ON t.id = c.thread LEFT JOIN lg_checkpoints p ON p.id = c.parent
	WHERE c.type IS NOT NULL`;
const ONE_ROW = `${ROWS} AND t.thread_id = ? AND t.checkpoint_ns = ?`;
/** The key of a checkpoint id, from (thread id, namespace, checkpoint id). */
const KEY = `(SELECT c.id FROM lg_checkpoints c JOIN lg_threads t ON t.id = c.thread
	WHERE t.thread_id = ? AND t.checkpoint_ns = ? AND c.checkpoint_id = ?)`;

type StoredRow = Omit<CheckpointRow, 'checkpoint_id' | 'parent_checkpoint_id'> & {
	checkpoint_id: string | Buffer;
	parent_checkpoint_id: string | Buffer | null;
};

function fromStored(row: StoredRow): CheckpointRow {
	const parent = row.parent_checkpoint_id;
	return { ...row, checkpoint_id: unpackUuid(row.checkpoint_id), parent_checkpoint_id: parent === null ? null : unpackUuid(parent) };
}

export class CheckpointStore {
	private readonly statements = new Map<string, Database.Statement>();

	constructor(readonly db: Database.Database) {
		// list() filters on metadata in SQL, as the stock saver does, though it is stored encoded.
		db.function('lg_metadata', { deterministic: true }, (metadata, encoding) =>
			metadata === null ? null : unpack(metadata as Uint8Array, encoding as number).toString('utf8')
		);
	}

	private sql(source: string): Database.Statement {
		let statement = this.statements.get(source);
		if (statement === undefined) {
			statement = this.db.prepare(source);
			this.statements.set(source, statement);
		}
		return statement;
	}

	row(threadId: string, ns: string, checkpointId: string): CheckpointRow | undefined {
		const row = this.sql(`${ONE_ROW} AND c.checkpoint_id = ?`).get(threadId, ns, packUuid(checkpointId)) as StoredRow | undefined;
		return row && fromStored(row);
	}

	latestRow(threadId: string, ns: string): CheckpointRow | undefined {
		const row = this.sql(`${ONE_ROW} ORDER BY c.checkpoint_id DESC LIMIT 1`).get(threadId, ns) as StoredRow | undefined;
		return row && fromStored(row);
	}

	list(query: ListQuery): CheckpointRow[] {
		const where: string[] = [];
		const args: unknown[] = [];
		const add = (clause: string, ...values: unknown[]) => {
			where.push(clause);
			args.push(...values);
		};
		if (query.threadId !== undefined) add('t.thread_id = ?', query.threadId);
		if (query.ns !== undefined) add('t.checkpoint_ns = ?', query.ns);
		if (query.before !== undefined) add('c.checkpoint_id < ?', packUuid(query.before));
		for (const [key, value] of Object.entries(query.filter ?? {})) {
			if (value !== undefined) add('(lg_metadata(c.metadata, c.encoding) -> ?) = ?', `$.${key}`, JSON.stringify(value));
		}
		let source = ROWS;
		if (where.length > 0) source += ` AND ${where.join(' AND ')}`;
		source += ' ORDER BY c.checkpoint_id DESC';
		// Like the stock saver, a limit of 0 means no limit.
		if (query.limit) source += ` LIMIT ${Math.trunc(query.limit)}`;
		return (this.db.prepare(source).all(...args) as StoredRow[]).map(fromStored);
	}

	/** Newest first; for the rare scans that look for a channel version anywhere in a thread. */
	rowsOfThread(threadId: string, ns: string): CheckpointRow[] {
		return (this.sql(`${ONE_ROW} ORDER BY c.checkpoint_id DESC`).all(threadId, ns) as StoredRow[]).map(fromStored);
	}

	channelMap(threadId: string, ns: string, checkpointId: string): ChannelMap | undefined {
		const row = this.sql(`SELECT channels, encoding FROM lg_checkpoints WHERE type IS NOT NULL AND id = ${KEY}`).get(
			threadId,
			ns,
			packUuid(checkpointId)
		) as Pick<CheckpointRow, 'channels' | 'encoding'> | undefined;
		return row === undefined ? undefined : channelMapOf(row);
	}

	/**
	 * Like the stock saver's INSERT OR REPLACE: putting the same checkpoint id again overwrites it.
	 * Its key stays, so the pending writes stored for it stay its own.
	 */
	insertCheckpoint(row: CheckpointRow): void {
		const thread = this.threadKey(row.thread_id, row.checkpoint_ns);
		const parent = row.parent_checkpoint_id === null ? null : this.checkpointKey(thread, row.parent_checkpoint_id);
		this.sql(
			`INSERT INTO lg_checkpoints (thread, checkpoint_id, parent, type, checkpoint, metadata, channels, encoding)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (thread, checkpoint_id) DO UPDATE SET parent = excluded.parent, type = excluded.type,
			   checkpoint = excluded.checkpoint, metadata = excluded.metadata, channels = excluded.channels,
			   encoding = excluded.encoding`
		).run(thread, packUuid(row.checkpoint_id), parent, row.type, row.checkpoint, row.metadata, row.channels, row.encoding);
	}

	/** Rewrite a row's channel map; the skeleton stays as stored, so the map keeps the row's encoding. */
	updateChannels(threadId: string, ns: string, checkpointId: string, map: ChannelMap, encoding: Encoding): void {
		const channels = encode(Buffer.from(JSON.stringify(map)), encoding);
		this.sql(`UPDATE lg_checkpoints SET channels = ? WHERE id = ${KEY}`).run(channels, threadId, ns, packUuid(checkpointId));
	}

	/** A root: the checkpoint keeps its data and loses its parent (retention, once the parent is deleted). */
	detachParent(threadId: string, ns: string, checkpointId: string): void {
		this.sql(`UPDATE lg_checkpoints SET parent = NULL WHERE id = ${KEY}`).run(threadId, ns, packUuid(checkpointId));
	}

	createLog(threadId: string, ns: string): number {
		const thread = this.threadKey(threadId, ns);
		return Number(this.sql(`INSERT INTO lg_logs (thread, length) VALUES (?, 0)`).run(thread).lastInsertRowid);
	}

	logLength(logId: number): number | undefined {
		const row = this.sql(`SELECT length FROM lg_logs WHERE log_id = ?`).get(logId) as
			| { length: number }
			| undefined;
		return row?.length;
	}

	/** Append items at positions from, from+1, …; the caller has checked that `from` is the tip. */
	appendItems(logId: number, from: number, items: readonly StoredValue[]): void {
		const insert = this.sql(`INSERT INTO lg_log_items (log_id, seq, type, value, encoding) VALUES (?, ?, ?, ?, ?)`);
		items.forEach((item, i) => insert.run(logId, from + i, item.type, item.value, item.encoding));
		this.sql(`UPDATE lg_logs SET length = ? WHERE log_id = ?`).run(from + items.length, logId);
	}

	/** Items from <= seq < to, in order. */
	items(logId: number, from: number, to: number): (StoredValue & { seq: number })[] {
		return this.sql(
			`SELECT seq, type, value, encoding FROM lg_log_items WHERE log_id = ? AND seq >= ? AND seq < ? ORDER BY seq`
		).all(logId, from, to) as (StoredValue & { seq: number })[];
	}

	item(logId: number, seq: number): StoredValue | undefined {
		return this.sql(`SELECT type, value, encoding FROM lg_log_items WHERE log_id = ? AND seq = ?`).get(logId, seq) as
			| StoredValue
			| undefined;
	}

	/** In writesSortKey order (task path, task id, idx): the order LangGraph applies them in. */
	writes(threadId: string, ns: string, checkpointId: string): WriteRow[] {
		const rows = this.sql(
			`SELECT task_id, idx, channel, type, value, encoding, task_path FROM lg_writes WHERE checkpoint = ${KEY}`
		).all(threadId, ns, packUuid(checkpointId)) as (Omit<WriteRow, 'task_id' | 'task_path'> & { task_id: string | Buffer; task_path: string | Buffer })[];
		return rows
			.map((row) => ({ ...row, task_id: unpackTaskId(row.task_id), task_path: unpackTaskPath(row.task_path) }))
			.sort(compareWrites);
	}

	/**
	 * Special writes (errors, interrupts, resume values) replace earlier ones; regular writes are
	 * kept on retry, the same rule as the stock saver.
	 */
	insertWrites(threadId: string, ns: string, checkpointId: string, writes: readonly NewWrite[], replace: boolean): void {
		const insert = this.sql(
			`INSERT ${replace ? 'OR REPLACE' : 'OR IGNORE'} INTO lg_writes
			 (checkpoint, task_id, idx, channel, type, value, encoding, task_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
		);
		const checkpoint = this.checkpointKey(this.threadKey(threadId, ns), checkpointId);
		for (const w of writes) {
			insert.run(checkpoint, packTaskId(w.taskId), w.idx, w.channel, w.type, w.value, w.encoding, packTaskPath(w.taskPath));
		}
	}

	/** Store a write's value another way (write-links.ts); the write keeps its key and channel. */
	relinkWrite(threadId: string, ns: string, checkpointId: string, write: Pick<WriteRow, 'task_id' | 'idx'>, value: Uint8Array, encoding: number): void {
		this.sql(`UPDATE lg_writes SET value = ?, encoding = ? WHERE checkpoint = ${KEY} AND task_id = ? AND idx = ?`).run(
			value,
			encoding,
			threadId,
			ns,
			packUuid(checkpointId),
			packTaskId(write.task_id),
			write.idx
		);
	}

	/** Delete everything of a thread, every namespace; returns the ids of the logs that were removed. */
	deleteThread(threadId: string): number[] {
		const threads = `SELECT id FROM lg_threads WHERE thread_id = ?`;
		const logIds = this.sql(`SELECT log_id FROM lg_logs WHERE thread IN (${threads})`).pluck().all(threadId) as number[];
		this.sql(`DELETE FROM lg_log_items WHERE log_id IN (SELECT log_id FROM lg_logs WHERE thread IN (${threads}))`).run(
			threadId
		);
		this.sql(`DELETE FROM lg_logs WHERE thread IN (${threads})`).run(threadId);
		this.sql(
			`DELETE FROM lg_writes WHERE checkpoint IN (SELECT id FROM lg_checkpoints WHERE thread IN (${threads}))`
		).run(threadId);
		this.sql(`DELETE FROM lg_checkpoints WHERE thread IN (${threads})`).run(threadId);
		this.sql(`DELETE FROM lg_threads WHERE thread_id = ?`).run(threadId);
		return logIds;
	}

	private threadKey(threadId: string, ns: string): number {
		const known = this.sql(`SELECT id FROM lg_threads WHERE thread_id = ? AND checkpoint_ns = ?`).pluck().get(threadId, ns);
		if (known !== undefined) return known as number;
		return Number(this.sql(`INSERT INTO lg_threads (thread_id, checkpoint_ns) VALUES (?, ?)`).run(threadId, ns).lastInsertRowid);
	}

	/** The key of a checkpoint id of the thread, recording the id (without data) if it is new. */
	private checkpointKey(thread: number, checkpointId: string): number {
		const stored = packUuid(checkpointId);
		const known = this.sql(`SELECT id FROM lg_checkpoints WHERE thread = ? AND checkpoint_id = ?`).pluck().get(thread, stored);
		if (known !== undefined) return known as number;
		const insert = this.sql(`INSERT INTO lg_checkpoints (thread, checkpoint_id) VALUES (?, ?)`);
		return Number(insert.run(thread, stored).lastInsertRowid);
	}
}
