// SQL access to the lg_* tables, shared by the saver, the stock import and retention.
// Synchronous (better-sqlite3): callers group calls into a transaction where they must be atomic.

import type Database from 'better-sqlite3';
import { encode, type Encoding } from './blob.js';
import type { ChannelMap } from './channel-map.js';
import { channelMapOf } from './row-encoding.js';

export interface CheckpointRow {
	thread_id: string;
	checkpoint_ns: string;
	checkpoint_id: string;
	parent_checkpoint_id: string | null;
	type: string;
	/** The serialised skeleton, encoded with `encoding`. */
	checkpoint: Uint8Array;
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

const ROW_COLUMNS =
	'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata, channels, encoding';

// writesSortKey order (task_path, task_id, idx): the order LangGraph applies a superstep's writes.
const WRITES_ORDER = `ORDER BY task_path, task_id, idx`;

export class CheckpointStore {
	private readonly statements = new Map<string, Database.Statement>();

	constructor(readonly db: Database.Database) {}

	private sql(source: string): Database.Statement {
		let statement = this.statements.get(source);
		if (statement === undefined) {
			statement = this.db.prepare(source);
			this.statements.set(source, statement);
		}
		return statement;
	}

	row(threadId: string, ns: string, checkpointId: string): CheckpointRow | undefined {
		return this.sql(
			`SELECT ${ROW_COLUMNS} FROM lg_checkpoints
			 WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`
		).get(threadId, ns, checkpointId) as CheckpointRow | undefined;
	}

	latestRow(threadId: string, ns: string): CheckpointRow | undefined {
		return this.sql(
			`SELECT ${ROW_COLUMNS} FROM lg_checkpoints WHERE thread_id = ? AND checkpoint_ns = ?
			 ORDER BY checkpoint_id DESC LIMIT 1`
		).get(threadId, ns) as CheckpointRow | undefined;
	}

	list(query: ListQuery): CheckpointRow[] {
		const where: string[] = [];
		const args: unknown[] = [];
		const add = (clause: string, ...values: unknown[]) => {
			where.push(clause);
			args.push(...values);
		};
		if (query.threadId !== undefined) add('thread_id = ?', query.threadId);
		if (query.ns !== undefined) add('checkpoint_ns = ?', query.ns);
		if (query.before !== undefined) add('checkpoint_id < ?', query.before);
		for (const [key, value] of Object.entries(query.filter ?? {})) {
			if (value !== undefined) add('(CAST(metadata AS TEXT) -> ?) = ?', `$.${key}`, JSON.stringify(value));
		}
		let source = `SELECT ${ROW_COLUMNS} FROM lg_checkpoints`;
		if (where.length > 0) source += ` WHERE ${where.join(' AND ')}`;
		source += ' ORDER BY checkpoint_id DESC';
		// Like the stock saver, a limit of 0 means no limit.
		if (query.limit) source += ` LIMIT ${Math.trunc(query.limit)}`;
		return this.db.prepare(source).all(...args) as CheckpointRow[];
	}

	/** Newest first; for the rare scans that look for a channel version anywhere in a thread. */
	rowsOfThread(threadId: string, ns: string): CheckpointRow[] {
		return this.sql(
			`SELECT ${ROW_COLUMNS} FROM lg_checkpoints WHERE thread_id = ? AND checkpoint_ns = ?
			 ORDER BY checkpoint_id DESC`
		).all(threadId, ns) as CheckpointRow[];
	}

	channelMap(threadId: string, ns: string, checkpointId: string): ChannelMap | undefined {
		const row = this.sql(
			`SELECT channels, encoding FROM lg_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`
		).get(threadId, ns, checkpointId) as Pick<CheckpointRow, 'channels' | 'encoding'> | undefined;
		return row === undefined ? undefined : channelMapOf(row);
	}

	/** INSERT OR REPLACE, like the stock saver: putting the same checkpoint id again overwrites it. */
	insertCheckpoint(row: CheckpointRow): void {
		this.sql(
			`INSERT OR REPLACE INTO lg_checkpoints (${ROW_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
		).run(
			row.thread_id,
			row.checkpoint_ns,
			row.checkpoint_id,
			row.parent_checkpoint_id,
			row.type,
			row.checkpoint,
			row.metadata,
			row.channels,
			row.encoding
		);
	}

	/** Rewrite a row's channel map; the skeleton stays as stored, so the map keeps the row's encoding. */
	updateChannels(threadId: string, ns: string, checkpointId: string, map: ChannelMap, encoding: Encoding): void {
		const channels = encode(Buffer.from(JSON.stringify(map)), encoding);
		this.sql(
			`UPDATE lg_checkpoints SET channels = ? WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`
		).run(channels, threadId, ns, checkpointId);
	}

	createLog(threadId: string, ns: string): number {
		const info = this.sql(`INSERT INTO lg_logs (thread_id, checkpoint_ns, length) VALUES (?, ?, 0)`).run(
			threadId,
			ns
		);
		return Number(info.lastInsertRowid);
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

	writes(threadId: string, ns: string, checkpointId: string): WriteRow[] {
		return this.sql(
			`SELECT task_id, idx, channel, type, value, encoding, task_path FROM lg_writes
			 WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ${WRITES_ORDER}`
		).all(threadId, ns, checkpointId) as WriteRow[];
	}

	/**
	 * Special writes (errors, interrupts, resume values) replace earlier ones; regular writes are
	 * kept on retry, the same rule as the stock saver.
	 */
	insertWrites(threadId: string, ns: string, checkpointId: string, writes: readonly NewWrite[], replace: boolean): void {
		const insert = this.sql(
			`INSERT ${replace ? 'OR REPLACE' : 'OR IGNORE'} INTO lg_writes
			 (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, encoding, task_path)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		);
		for (const w of writes) {
			insert.run(threadId, ns, checkpointId, w.taskId, w.idx, w.channel, w.type, w.value, w.encoding, w.taskPath);
		}
	}

	/** Store a write's value another way (write-links.ts); the write keeps its key and channel. */
	relinkWrite(threadId: string, ns: string, checkpointId: string, write: Pick<WriteRow, 'task_id' | 'idx'>, value: Uint8Array, encoding: number): void {
		this.sql(
			`UPDATE lg_writes SET value = ?, encoding = ?
			 WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND task_id = ? AND idx = ?`
		).run(value, encoding, threadId, ns, checkpointId, write.task_id, write.idx);
	}

	/** Delete everything of a thread; returns the ids of the logs that were removed. */
	deleteThread(threadId: string): number[] {
		const logIds = (
			this.sql(`SELECT log_id FROM lg_logs WHERE thread_id = ?`).all(threadId) as { log_id: number }[]
		).map((r) => r.log_id);
		this.sql(
			`DELETE FROM lg_log_items WHERE log_id IN (SELECT log_id FROM lg_logs WHERE thread_id = ?)`
		).run(threadId);
		this.sql(`DELETE FROM lg_logs WHERE thread_id = ?`).run(threadId);
		this.sql(`DELETE FROM lg_writes WHERE thread_id = ?`).run(threadId);
		this.sql(`DELETE FROM lg_checkpoints WHERE thread_id = ?`).run(threadId);
		return logIds;
	}
}
