// Applies the PostgreSQL schema's list (migrations.ts) at start, under a lock several instances share.

import type pg from 'pg';
import { MIGRATIONS } from './migrations.js';
import { inTransaction } from './transaction.js';

/** Any number of instances may start at once: the first to take this lock migrates, the rest wait. */
const MIGRATION_LOCK = 0x50_48_05_05;

export class PostgresSchemaError extends Error {
	readonly code = 'SCHEMA_TOO_NEW';
	constructor(readonly databaseVersion: number, readonly knownVersion: number) {
		super(
			`the PostgreSQL database is at schema version ${databaseVersion}, newer than this Sophos knows (${knownVersion}); ` +
				'run the Sophos version that migrated it, or a newer one'
		);
	}
}

/**
 * Brings the database's schema up to date, in one transaction: a failure applies nothing. Safe to
 * call from several processes at once. Returns how many migrations were applied; throws
 * PostgresSchemaError when a newer Sophos has migrated the database further than this one knows.
 */
export async function migratePostgres(pool: pg.Pool): Promise<number> {
	return inTransaction(pool, async (client) => {
		await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
		await client.query(
			`CREATE TABLE IF NOT EXISTS sophos_migrations (
				version integer PRIMARY KEY,
				applied_at timestamptz NOT NULL DEFAULT now()
			)`
		);
		const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM sophos_migrations`);
		const applied = rows[0]?.version ?? 0;
		if (applied > MIGRATIONS.length) throw new PostgresSchemaError(applied, MIGRATIONS.length);
		for (let i = applied; i < MIGRATIONS.length; i += 1) {
			await client.query(MIGRATIONS[i]!);
			await client.query(`INSERT INTO sophos_migrations (version) VALUES ($1)`, [i + 1]);
		}
		return MIGRATIONS.length - applied;
	});
}
