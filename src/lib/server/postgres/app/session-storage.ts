// The page's sign-in sessions by digest (storage/session-storage.ts SessionStorage) on PostgreSQL: a
// logout on one instance ends the session on all of them, as each asks the table.

import type pg from 'pg';
import type { SessionStorage } from '../../storage/session-storage';

export function postgresSessionStorage(pool: pg.Pool): SessionStorage {
	return {
		async create(digest, expiresAt) {
			await pool.query(`INSERT INTO sessions (digest, expires_at) VALUES ($1, $2)`, [digest, expiresAt]);
		},

		async isLive(digest, now) {
			const { rowCount } = await pool.query(`SELECT 1 FROM sessions WHERE digest = $1 AND expires_at > $2`, [digest, now]);
			return (rowCount ?? 0) > 0;
		},

		async delete(digest) {
			const { rowCount } = await pool.query(`DELETE FROM sessions WHERE digest = $1`, [digest]);
			return (rowCount ?? 0) > 0;
		},

		async prune(now) {
			const { rowCount } = await pool.query(`DELETE FROM sessions WHERE expires_at <= $1`, [now]);
			return rowCount ?? 0;
		}
	};
}
