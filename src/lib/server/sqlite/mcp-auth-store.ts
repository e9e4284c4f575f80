import type Database from 'better-sqlite3';
import type { McpAuthRecord, McpAuthStorage, PendingSignIn } from '../storage/mcp-auth-storage';

type Row = { client: string | null; tokens: string | null; expires_at: string | null };

/**
 * The refresh lock: one process owns the file, so it is a queue per file and server in this process,
 * shared by every connection to the file (a second storage on it, as the tests open).
 */
const locks = new Map<string, Promise<unknown>>();

/** OAuth sign-ins to remote MCP servers (storage/mcp-auth-storage.ts McpAuthStorage) on the SQLite file. */
export function sqliteMcpAuthStorage(db: Database.Database): McpAuthStorage {
	const select = db.prepare<[string], Row>('SELECT client, tokens, expires_at FROM mcp_auth WHERE server = ?');
	const upsertClient = db.prepare(
		`INSERT INTO mcp_auth (server, client, updated_at) VALUES (?, ?, ?)
		 ON CONFLICT (server) DO UPDATE SET client = excluded.client, updated_at = excluded.updated_at`
	);
	const upsertTokens = db.prepare(
		`INSERT INTO mcp_auth (server, tokens, expires_at, updated_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (server) DO UPDATE SET tokens = excluded.tokens, expires_at = excluded.expires_at, updated_at = excluded.updated_at`
	);
	const clearTokens = db.prepare('UPDATE mcp_auth SET tokens = NULL, expires_at = NULL WHERE server = ? AND tokens IS NOT NULL');
	const remove = db.prepare('DELETE FROM mcp_auth WHERE server = ?');
	const insertSignIn = db.prepare('INSERT INTO mcp_sign_ins (state, server, verifier, redirect_uri, expires_at) VALUES (?, ?, ?, ?, ?)');
	const takeOne = db.prepare<[string, string, string], { server: string; verifier: string; redirect_uri: string }>(
		'DELETE FROM mcp_sign_ins WHERE state = ? AND server = ? AND expires_at > ? RETURNING server, verifier, redirect_uri'
	);
	const dropExpired = db.prepare('DELETE FROM mcp_sign_ins WHERE expires_at <= ?');

	const get = (server: string): McpAuthRecord | undefined => {
		const row = select.get(server);
		return row && { client: row.client, tokens: row.tokens, expiresAt: row.expires_at };
	};

	return {
		get: async (server) => get(server),
		saveClient: async (server, client, now) => void upsertClient.run(server, client, now),
		saveTokens: async (server, tokens, expiresAt, now) => void upsertTokens.run(server, tokens, expiresAt, now),
		forget: async (server, what) => (what === 'all' ? remove.run(server) : clearTokens.run(server)).changes > 0,
		beginSignIn: async (state, p: PendingSignIn, expiresAt) => void insertSignIn.run(state, p.server, p.verifier, p.redirectUri, expiresAt),
		async takeSignIn(state, server, now) {
			const row = db.transaction(() => {
				const taken = takeOne.get(state, server, now);
				dropExpired.run(now);
				return taken;
			})();
			return row && { server: row.server, verifier: row.verifier, redirectUri: row.redirect_uri };
		},
		refreshUnderLock(server, now, decide) {
			const key = `${db.name}\0${server}`;
			const turn = (locks.get(key) ?? Promise.resolve()).catch(() => {}).then(async () => {
				const decided = await decide(get(server));
				if (decided === 'forget') clearTokens.run(server);
				else if (decided !== 'keep') upsertTokens.run(server, decided.tokens, decided.expiresAt, now);
				return get(server);
			});
			locks.set(key, turn);
			void turn.finally(() => locks.get(key) === turn && locks.delete(key)).catch(() => {});
			return turn;
		}
	};
}
