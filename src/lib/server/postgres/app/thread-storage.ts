// Conversations as the protocol's threads (storage/thread-storage.ts ThreadStorage) on PostgreSQL.

import type pg from 'pg';
import { canonicalJson } from '../../canonical-json';
import { toSummary, UNTITLED, type SummaryRow } from '../../storage/conversation-records';
import type { ThreadStorage } from '../../storage/thread-storage';
import { parseMetadata, type ThreadFilter, type ThreadRecord } from '../../storage/thread-records';
import { inTransaction } from '../transaction.js';
import { isoText } from './iso-text.js';

type ThreadRow = SummaryRow & { metadata: string };

// The latest run gives the thread its status, as in conversation-storage.ts.
const FROM = `
	FROM conversations c
	LEFT JOIN LATERAL (
		SELECT status, error_code, error_message FROM runs
		WHERE conversation_id = c.id ORDER BY started_at DESC, seq DESC LIMIT 1
	) r ON true`;
const THREAD_SELECT = `
	SELECT c.id, c.title, ${isoText('c.created_at')} AS created_at, ${isoText('c.updated_at')} AS updated_at,
	       c.message_count, c.model, c.metadata, r.status, r.error_code, r.error_message ${FROM}`;

// Byte order and nulls first going up, as SQLite sorts; a collation's order would differ by locale.
const COLUMN = { id: 'c.id COLLATE "C"', status: 'r.status COLLATE "C"', createdAt: 'c.created_at', updatedAt: 'c.updated_at' } as const;

function toRecord(row: ThreadRow): ThreadRecord {
	return { conversation: toSummary(row), metadata: parseMetadata(row.metadata) };
}

/** The WHERE clause of `filter`, its parameters numbered from $1. */
function whereOf(filter: ThreadFilter): { sql: string; params: unknown[] } {
	const conditions: string[] = [];
	const params: unknown[] = [];
	const param = (value: unknown) => {
		params.push(value);
		return `$${params.length}`;
	};
	for (const [key, value] of Object.entries(filter.metadata ?? {})) {
		// jsonb equality: objects equal whatever their key order, as the SQLite store's canonical text.
		conditions.push(`(c.metadata::jsonb -> ${param(key)}::text) = ${param(canonicalJson(value))}::jsonb`);
	}
	if (filter.ids) conditions.push(`c.id = ANY(${param([...filter.ids])}::text[])`);
	if (filter.latestRun) {
		const statuses = filter.latestRun.filter((s) => s !== null);
		const nullToo = filter.latestRun.includes(null);
		conditions.push(`(r.status = ANY(${param(statuses)}::text[])${nullToo ? ' OR r.status IS NULL' : ''})`);
	}
	return { sql: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

export function postgresThreadStorage(pool: pg.Pool): ThreadStorage {
	return {
		async create(id, now, metadata) {
			const { rowCount } = await pool.query(
				`INSERT INTO conversations (id, title, created_at, updated_at, metadata) VALUES ($1, '${UNTITLED}', $2, $2, $3) ON CONFLICT (id) DO NOTHING`,
				[id, now, canonicalJson(metadata)]
			);
			return rowCount ? 'created' : 'exists';
		},

		async get(id) {
			const { rows } = await pool.query<ThreadRow>(`${THREAD_SELECT} WHERE c.id = $1`, [id]);
			return rows[0] && toRecord(rows[0]);
		},

		async mergeMetadata(id, patch) {
			// Locked, read and written in one transaction, so two merges never lose each other's keys.
			return inTransaction(pool, async (client) => {
				const { rows } = await client.query<{ metadata: string }>(`SELECT metadata FROM conversations WHERE id = $1 FOR UPDATE`, [id]);
				if (!rows[0]) return false;
				await client.query(`UPDATE conversations SET metadata = $1 WHERE id = $2`, [
					canonicalJson({ ...parseMetadata(rows[0].metadata), ...patch }),
					id
				]);
				return true;
			});
		},

		async search(filter, page) {
			const { sql, params } = whereOf(filter);
			const direction = page.order.direction === 'asc' ? 'ASC' : 'DESC';
			const { rows } = await pool.query<ThreadRow>(
				`${THREAD_SELECT} ${sql} ORDER BY ${COLUMN[page.order.by]} ${direction} ${direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}, c.seq ${direction} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
				[...params, page.limit, page.offset]
			);
			return rows.map(toRecord);
		},

		async count(filter) {
			const { sql, params } = whereOf(filter);
			const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n ${FROM} ${sql}`, params);
			return Number(rows[0]!.n);
		}
	};
}
