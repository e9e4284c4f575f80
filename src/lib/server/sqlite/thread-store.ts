import type Database from 'better-sqlite3';
import { canonicalJson } from '../canonical-json';
import { toSummary, UNTITLED, type SummaryRow } from '../storage/conversation-records';
import {
	parseMetadata,
	type ThreadFilter,
	type ThreadMetadata,
	type ThreadPageRequest,
	type ThreadRecord
} from '../storage/thread-records';

type ThreadRow = SummaryRow & { metadata: string };

// The latest run gives the thread its status, as in conversation-store.ts.
const THREAD_SELECT = `
	SELECT c.id, c.title, c.created_at, c.updated_at, c.message_count, c.model, c.metadata,
		r.status, r.error_code, r.error_message
	FROM conversations c
	LEFT JOIN runs r ON r.rowid = (
		SELECT rowid FROM runs WHERE conversation_id = c.id ORDER BY started_at DESC, rowid DESC LIMIT 1
	)`;

const COLUMN = { id: 'c.id', status: 'r.status', createdAt: 'c.created_at', updatedAt: 'c.updated_at' } as const;

/**
 * A value under a key of the stored metadata as canonical JSON text, to compare with the filter's:
 * json_each gives scalars as SQL values (booleans as 1 and 0) and objects and arrays as their text,
 * which keeps the stored (sorted) key order.
 */
const KEY_HOLDS = `EXISTS (SELECT 1 FROM json_each(c.metadata) e WHERE e.key = ? AND
	CASE e.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN 'null'
		WHEN 'object' THEN e.value WHEN 'array' THEN e.value ELSE json_quote(e.value) END = ?)`;

function toRecord(row: ThreadRow): ThreadRecord {
	return { conversation: toSummary(row), metadata: parseMetadata(row.metadata) };
}

function whereOf(filter: ThreadFilter): { sql: string; params: unknown[] } {
	const conditions: string[] = [];
	const params: unknown[] = [];
	for (const [key, value] of Object.entries(filter.metadata ?? {})) {
		conditions.push(KEY_HOLDS);
		params.push(key, canonicalJson(value));
	}
	if (filter.ids) {
		conditions.push(filter.ids.length ? `c.id IN (${filter.ids.map(() => '?').join(', ')})` : '0');
		params.push(...filter.ids);
	}
	if (filter.latestRun) {
		const statuses = filter.latestRun.filter((s) => s !== null);
		const either = [
			...(statuses.length ? [`r.status IN (${statuses.map(() => '?').join(', ')})`] : []),
			...(filter.latestRun.includes(null) ? ['r.status IS NULL'] : [])
		];
		conditions.push(either.length ? `(${either.join(' OR ')})` : '0');
		params.push(...statuses);
	}
	return { sql: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/** Conversations as the protocol's threads (storage/thread-storage.ts ThreadStorage) in the SQLite file. */
export class ThreadStore {
	private readonly insert;
	private readonly byId;
	private readonly metadataById;
	private readonly setMetadata;

	constructor(private readonly db: Database.Database) {
		this.insert = db.prepare(
			`INSERT INTO conversations (id, title, created_at, updated_at, metadata) VALUES (?, '${UNTITLED}', ?, ?, ?) ON CONFLICT (id) DO NOTHING`
		);
		this.byId = db.prepare<[string], ThreadRow>(`${THREAD_SELECT} WHERE c.id = ?`);
		this.metadataById = db.prepare<[string], { metadata: string }>('SELECT metadata FROM conversations WHERE id = ?');
		this.setMetadata = db.prepare('UPDATE conversations SET metadata = ? WHERE id = ?');
	}

	create(id: string, now: string, metadata: ThreadMetadata): 'created' | 'exists' {
		return this.insert.run(id, now, now, canonicalJson(metadata)).changes > 0 ? 'created' : 'exists';
	}

	get(id: string): ThreadRecord | undefined {
		const row = this.byId.get(id);
		return row && toRecord(row);
	}

	/** Read and written in one transaction, so two merges never lose each other's keys. */
	mergeMetadata(id: string, patch: ThreadMetadata): boolean {
		return this.db.transaction(() => {
			const row = this.metadataById.get(id);
			if (!row) return false;
			this.setMetadata.run(canonicalJson({ ...parseMetadata(row.metadata), ...patch }), id);
			return true;
		})();
	}

	search(filter: ThreadFilter, page: ThreadPageRequest): ThreadRecord[] {
		const { sql, params } = whereOf(filter);
		const direction = page.order.direction === 'asc' ? 'ASC' : 'DESC';
		const rows = this.db
			.prepare<unknown[], ThreadRow>(
				`${THREAD_SELECT} ${sql} ORDER BY ${COLUMN[page.order.by]} ${direction}, c.rowid ${direction} LIMIT ? OFFSET ?`
			)
			.all(...params, page.limit, page.offset);
		return rows.map(toRecord);
	}

	count(filter: ThreadFilter): number {
		const { sql, params } = whereOf(filter);
		const from = THREAD_SELECT.slice(THREAD_SELECT.indexOf('FROM'));
		return this.db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n ${from} ${sql}`).get(...params)!.n;
	}
}
