// Import of the stock SqliteSaver's tables (`checkpoints`, `writes`) into the lg_* tables.
//
// Works on the JSON text the stock saver wrote (its default serde), without reviving messages:
// an array element's JSON text is exactly what our saver stores as a log item, so the import is
// a re-layout, linear in the stock file's size. Runs inside the caller's transaction.

import type Database from 'better-sqlite3';
import { pack } from '../../checkpoint/blob.js';
import { inheritEntry, type ChannelMap } from '../../checkpoint/channel-map.js';
import {
	DEFAULT_MAX_SEGMENTS,
	itemsToWrite,
	needsNewLog,
	planLogWrite,
	segmentsAfter,
	totalLength,
	type LogPlan,
	type Segment
} from '../../checkpoint/segments.js';
import { encodeCheckpoint } from '../../checkpoint/row-encoding.js';
import { CheckpointStore, type StoredValue } from './store.js';

export interface StockImportResult {
	checkpoints: number;
	writes: number;
	dropped: boolean;
}

interface StockRow {
	checkpoint_id: string;
	parent_checkpoint_id: string | null;
	type: string | null;
	checkpoint: Buffer;
	metadata: Buffer | null;
}

interface Imported {
	map: ChannelMap;
	versions: Record<string, unknown>;
	/** JSON text of each non-array value, to tell an unchanged value from a changed one. */
	texts: Record<string, string>;
}

/** A stock write's checkpoint id as the store keeps it (checkpoint/packed-uuid.ts packUuid, in SQL). */
const CANONICAL_UUID = [8, 4, 4, 4, 12].map((n) => '[0-9a-f]'.repeat(n)).join('-');
const PACKED_ID = `CASE WHEN w.checkpoint_id GLOB '${CANONICAL_UUID}' THEN unhex(replace(w.checkpoint_id, '-', '')) ELSE w.checkpoint_id END`;

const STOCK_COLUMNS = {
	checkpoints: ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'parent_checkpoint_id', 'type', 'checkpoint', 'metadata'],
	writes: ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'task_id', 'idx', 'channel', 'type', 'value']
};

export function importStockTables(db: Database.Database): StockImportResult {
	// Only tables shaped like the stock saver's are imported (and dropped); anything else is not ours.
	const isStock = (table: keyof typeof STOCK_COLUMNS) => {
		const columns = new Set(db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]);
		return STOCK_COLUMNS[table].every((column) => columns.has(column));
	};
	if (!isStock('checkpoints') || !isStock('writes')) return { checkpoints: 0, writes: 0, dropped: false };
	const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
	const checkpoints = count('checkpoints');
	const writes = count('writes');
	if (checkpoints === 0 && writes === 0) return { checkpoints: 0, writes: 0, dropped: false };

	const store = new CheckpointStore(db);
	const threads = db.prepare(`SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints`).all() as {
		thread_id: string;
		checkpoint_ns: string;
	}[];
	for (const { thread_id, checkpoint_ns } of threads) importThread(db, store, thread_id, checkpoint_ns);
	// Writes may belong to checkpoint ids with no checkpoint: those ids get a key of their own.
	db.exec(`
		INSERT OR IGNORE INTO lg_threads (thread_id, checkpoint_ns) SELECT DISTINCT thread_id, checkpoint_ns FROM writes;
		INSERT OR IGNORE INTO lg_checkpoints (thread, checkpoint_id)
		SELECT DISTINCT t.id, ${PACKED_ID} FROM writes w
		JOIN lg_threads t ON t.thread_id = w.thread_id AND t.checkpoint_ns = w.checkpoint_ns;
		INSERT OR IGNORE INTO lg_writes (checkpoint, task_id, idx, channel, type, value, task_path)
		SELECT c.id, w.task_id, w.idx, w.channel, COALESCE(w.type, 'json'), w.value, '' FROM writes w
		JOIN lg_threads t ON t.thread_id = w.thread_id AND t.checkpoint_ns = w.checkpoint_ns
		JOIN lg_checkpoints c ON c.thread = t.id AND c.checkpoint_id = ${PACKED_ID};
		DROP TABLE checkpoints;
		DROP TABLE writes;
	`);
	return { checkpoints, writes, dropped: true };
}

function importThread(db: Database.Database, store: CheckpointStore, threadId: string, ns: string): void {
	// Checkpoint ids are time-ordered (uuid6), so parents come before their children; a parent not
	// imported yet would only cost its child a full copy of its arrays.
	const ids = db
		.prepare(`SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id`)
		.pluck()
		.all(threadId, ns) as string[];
	const readRow = db.prepare(
		`SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints
		 WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`
	);
	const imported = new Map<string, Imported>();
	const logItems = new Map<number, string[]>();
	for (const id of ids) {
		const row = readRow.get(threadId, ns, id) as StockRow;
		if ((row.type ?? 'json') !== 'json') {
			throw new Error(`checkpoint store: cannot import stock checkpoint ${id} of serde type "${row.type}"`);
		}
		const { id: _id, channel_values: values = {}, ...skeleton } = JSON.parse(row.checkpoint.toString('utf8'));
		const versions: Record<string, unknown> = skeleton.channel_versions ?? {};
		const parentId = row.parent_checkpoint_id;
		const parent = parentId === null ? undefined : imported.get(parentId);
		const current: Imported = { map: {}, versions, texts: {} };
		for (const [channel, value] of Object.entries(values as Record<string, unknown>)) {
			const parentEntry = parent?.map[channel];
			if (Array.isArray(value)) {
				const parentSegments = parentEntry !== undefined && 's' in parentEntry ? parentEntry.s : undefined;
				const segments = importArray(store, logItems, threadId, ns, value, parentSegments);
				current.map[channel] = { s: segments };
				continue;
			}
			const text = JSON.stringify(value);
			current.texts[channel] = text;
			const unchanged =
				parentEntry !== undefined && parent?.versions[channel] === versions[channel] && parent?.texts[channel] === text;
			current.map[channel] = unchanged && parentId !== null ? inheritEntry(parentEntry, parentId) : { v: ['json', text] };
		}
		store.insertCheckpoint({
			thread_id: threadId,
			checkpoint_ns: ns,
			checkpoint_id: id,
			parent_checkpoint_id: parentId,
			type: 'json',
			...encodeCheckpoint(Buffer.from(JSON.stringify(skeleton)), current.map, row.metadata ?? Buffer.from('{}'))
		});
		imported.set(id, current);
	}
}

function importArray(
	store: CheckpointStore,
	logItems: Map<number, string[]>,
	threadId: string,
	ns: string,
	value: unknown[],
	parentSegments: readonly Segment[] | undefined
): Segment[] {
	const texts = value.map((item) => JSON.stringify(item));
	const last = parentSegments?.[parentSegments.length - 1];
	const plan = planLogWrite({
		parentSegments,
		extendsParent: parentSegments !== undefined && isPrefix(parentSegments, logItems, texts),
		childLength: texts.length,
		tipLength: last === undefined ? undefined : logItems.get(last[0])?.length,
		maxSegments: DEFAULT_MAX_SEGMENTS
	});
	const { start, end } = itemsToWrite(plan, parentSegments, texts.length);
	const items = texts.slice(start, end).map((text) => ({ type: 'json', ...pack(Buffer.from(text)) }));
	const written = applyLogPlan(store, threadId, ns, plan, parentSegments, texts.length, items);
	if (written.logId !== undefined) {
		logItems.set(written.logId, (logItems.get(written.logId) ?? []).concat(texts.slice(start, end)));
	}
	return written.segments;
}

function isPrefix(segments: readonly Segment[], logItems: Map<number, string[]>, texts: readonly string[]): boolean {
	if (texts.length < totalLength(segments)) return false;
	let position = 0;
	for (const [logId, length] of segments) {
		const log = logItems.get(logId) ?? [];
		for (let seq = 0; seq < length; seq += 1, position += 1) if (log[seq] !== texts[position]) return false;
	}
	return true;
}

/**
 * Carry out a plan inside the caller's transaction: append to the parent's last log or create a
 * log, and return the child's segments.
 */
function applyLogPlan(
	store: CheckpointStore,
	threadId: string,
	ns: string,
	plan: LogPlan,
	parentSegments: readonly Segment[] | undefined,
	childLength: number,
	items: readonly StoredValue[]
): { segments: Segment[]; logId?: number; from: number } {
	let logId: number | undefined;
	let from = 0;
	if (plan.kind === 'append') {
		// Another connection may have appended since the plan was made; never overwrite its items.
		if (store.logLength(plan.logId) !== plan.from) {
			throw new Error(`checkpoint store: log ${plan.logId} of thread ${threadId} was appended to concurrently`);
		}
		logId = plan.logId;
		from = plan.from;
	} else if (needsNewLog(plan, childLength)) {
		logId = store.createLog(threadId, ns);
	}
	if (logId !== undefined) store.appendItems(logId, from, items);
	return { segments: segmentsAfter(plan, parentSegments, childLength, logId), logId, from };
}
