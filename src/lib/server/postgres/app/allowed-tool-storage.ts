// "Always allow this tool" (storage/approval-storage.ts AllowedToolStorage) on PostgreSQL.

import type pg from 'pg';
import type { AllowedToolStorage } from '../../storage/approval-storage';
import type { Queryable } from '../checkpoint/store.js';
import { isoText } from './iso-text.js';

/** A tool allowed already keeps its first `since`. */
export async function allowTools(q: Queryable, tools: readonly string[], now: string): Promise<void> {
	if (tools.length === 0) return;
	await q.query(`INSERT INTO allowed_tools (tool, since) SELECT DISTINCT tool, $2::timestamptz FROM unnest($1::text[]) AS tool ON CONFLICT DO NOTHING`, [
		tools,
		now
	]);
}

export function postgresAllowedToolStorage(pool: pg.Pool): AllowedToolStorage {
	return {
		async list() {
			const { rows } = await pool.query<{ tool: string; since: string }>(
				`SELECT tool, ${isoText('since')} AS since FROM allowed_tools ORDER BY tool`
			);
			return rows;
		},

		async has(tool) {
			const { rowCount } = await pool.query(`SELECT 1 FROM allowed_tools WHERE tool = $1`, [tool]);
			return (rowCount ?? 0) > 0;
		},

		allow: (tool, now) => allowTools(pool, [tool], now),

		async revoke(tool) {
			const { rowCount } = await pool.query(`DELETE FROM allowed_tools WHERE tool = $1`, [tool]);
			return (rowCount ?? 0) > 0;
		}
	};
}
