// OAuth sign-ins to remote MCP servers (storage/mcp-auth-storage.ts McpAuthStorage) on PostgreSQL: every
// instance reads the same tokens, and a refresh holds a lock on the server's name, so several
// instances that find one token expiring refresh it once.

import type pg from 'pg';
import type { McpAuthRecord, McpAuthStorage } from '../../storage/mcp-auth-storage';
import { inTransaction } from '../transaction.js';
import { isoText } from './iso-text.js';

/** The first key of the two-key advisory lock a refresh takes; the second is the server's name, hashed. */
const REFRESH_LOCK = 0x50_48_0a_74;

const SELECT = `SELECT client, tokens, ${isoText('expires_at')} AS expires_at FROM mcp_auth WHERE server = $1`;
const UPSERT_TOKENS = `INSERT INTO mcp_auth (server, tokens, expires_at, updated_at) VALUES ($1, $2, $3, $4)
	ON CONFLICT (server) DO UPDATE SET tokens = excluded.tokens, expires_at = excluded.expires_at, updated_at = excluded.updated_at`;
const CLEAR_TOKENS = `UPDATE mcp_auth SET tokens = NULL, expires_at = NULL WHERE server = $1 AND tokens IS NOT NULL`;

type Row = { client: string | null; tokens: string | null; expires_at: string | null };

async function read(db: pg.Pool | pg.PoolClient, server: string): Promise<McpAuthRecord | undefined> {
	const { rows } = await db.query<Row>(SELECT, [server]);
	const row = rows[0];
	return row && { client: row.client, tokens: row.tokens, expiresAt: row.expires_at };
}

export function postgresMcpAuthStorage(pool: pg.Pool): McpAuthStorage {
	return {
		get: (server) => read(pool, server),

		async saveClient(server, client, now) {
			await pool.query(
				`INSERT INTO mcp_auth (server, client, updated_at) VALUES ($1, $2, $3)
				 ON CONFLICT (server) DO UPDATE SET client = excluded.client, updated_at = excluded.updated_at`,
				[server, client, now]
			);
		},

		async saveTokens(server, tokens, expiresAt, now) {
			await pool.query(UPSERT_TOKENS, [server, tokens, expiresAt, now]);
		},

		async forget(server, what) {
			const { rowCount } = await pool.query(what === 'all' ? `DELETE FROM mcp_auth WHERE server = $1` : CLEAR_TOKENS, [server]);
			return (rowCount ?? 0) > 0;
		},

		async beginSignIn(state, pending, expiresAt) {
			await pool.query(`INSERT INTO mcp_sign_ins (state, server, verifier, redirect_uri, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
				state,
				pending.server,
				pending.verifier,
				pending.redirectUri,
				expiresAt
			]);
		},

		async takeSignIn(state, server, now) {
			// One statement: of two callbacks with the same state, one deletes the row and the other finds none.
			const { rows } = await pool.query<{ server: string; verifier: string; redirect_uri: string }>(
				`DELETE FROM mcp_sign_ins WHERE state = $1 AND server = $2 AND expires_at > $3 RETURNING server, verifier, redirect_uri`,
				[state, server, now]
			);
			await pool.query(`DELETE FROM mcp_sign_ins WHERE expires_at <= $1`, [now]);
			const row = rows[0];
			return row && { server: row.server, verifier: row.verifier, redirectUri: row.redirect_uri };
		},

		refreshUnderLock(server, now, decide) {
			return inTransaction(pool, async (client) => {
				await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [REFRESH_LOCK, server]);
				const decided = await decide(await read(client, server));
				if (decided === 'forget') await client.query(CLEAR_TOKENS, [server]);
				else if (decided !== 'keep') await client.query(UPSERT_TOKENS, [server, decided.tokens, decided.expiresAt, now]);
				return read(client, server);
			});
		}
	};
}
