// The PostgreSQL migration list: applied once, by whichever of several instances gets there first,
// and a database migrated further than this code knows is refused without being touched.

import pg from 'pg';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { migratePostgres, PostgresSchemaError } from '../../src/lib/server/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;
let pools: pg.Pool[];
beforeEach(async () => {
	database = await createTestDatabase(inject('postgresUrl'), 'migrations');
	pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: database.url, max: 2 }));
});
afterEach(async () => {
	await Promise.all(pools.map((pool) => pool.end()));
	await database.drop();
});

const versions = async (pool: pg.Pool) =>
	(await pool.query<{ version: number }>(`SELECT version FROM sophos_migrations ORDER BY version`)).rows.map((r) => r.version);

describe('migratePostgres', () => {
	it('applies every migration once, three instances starting at the same moment', async () => {
		const applied = await Promise.all(pools.map((pool) => migratePostgres(pool)));
		const total = (await versions(pools[0]!)).length;
		expect(total).toBeGreaterThan(0);
		expect(applied.sort()).toEqual([0, 0, total]);
		expect(await versions(pools[0]!)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
		expect(await migratePostgres(pools[1]!)).toBe(0);
	});

	it('refuses a database a newer Sophos migrated further, and changes nothing', async () => {
		await migratePostgres(pools[0]!);
		const known = (await versions(pools[0]!)).length;
		await pools[0]!.query(`INSERT INTO sophos_migrations (version) VALUES ($1)`, [known + 1]);
		const refused = await migratePostgres(pools[1]!).catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(PostgresSchemaError);
		expect(refused).toMatchObject({ code: 'SCHEMA_TOO_NEW', databaseVersion: known + 1, knownVersion: known });
		expect(await versions(pools[0]!)).toHaveLength(known + 1);
	});

	it('applies nothing when a migration fails', async () => {
		// A table in the way of the first migration: its CREATE fails after others succeeded, and everything rolls back.
		await pools[0]!.query(`CREATE TABLE lg_checkpoints (x integer)`);
		await expect(migratePostgres(pools[0]!)).rejects.toMatchObject({ code: '42P07' });
		const tables = await pools[0]!.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
		expect(tables.rows.map((r) => r.tablename)).toEqual(['lg_checkpoints']);
	});
});
