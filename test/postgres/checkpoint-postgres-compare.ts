// Test helpers: the stock PostgresSaver or DeltaPostgresSaver, each in a database of its own, and
// the bytes each saver's tables take (pg_total_relation_size: heap, TOAST and indexes).

import pg from 'pg';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { DeltaPostgresSaver, migratePostgres, type DeltaPostgresSaverOptions } from '../../src/lib/server/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

export type SaverKind = 'stock' | 'delta';

export const SAVER_TABLES: Record<SaverKind, readonly string[]> = {
	stock: ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes', 'checkpoint_migrations'],
	delta: ['lg_threads', 'lg_checkpoints', 'lg_logs', 'lg_log_items', 'lg_writes', 'sophos_migrations']
};

export interface OpenPostgresStore {
	pool: pg.Pool;
	saver: BaseCheckpointSaver;
	close(): Promise<void>;
}

export async function openPostgresStore(
	adminUrl: string,
	kind: SaverKind,
	options?: DeltaPostgresSaverOptions
): Promise<OpenPostgresStore> {
	const database: TestDatabase = await createTestDatabase(adminUrl, kind);
	const pool = new pg.Pool({ connectionString: database.url, max: 4, pipeline: true });
	let saver: BaseCheckpointSaver;
	if (kind === 'stock') {
		const stock = new PostgresSaver(pool);
		await stock.setup();
		saver = stock;
	} else {
		await migratePostgres(pool);
		saver = new DeltaPostgresSaver(pool, options);
	}
	return {
		pool,
		saver,
		async close() {
			await pool.end();
			await database.drop();
		}
	};
}

/**
 * Bytes of the saver's tables with their TOAST and indexes, compacted first (VACUUM FULL), so the
 * figure is the live data: dead row versions and when autovacuum last ran would otherwise decide it.
 */
export async function tableBytes(pool: pg.Pool, kind: SaverKind): Promise<number> {
	await pool.query(`VACUUM FULL ${SAVER_TABLES[kind].join(', ')}`);
	const { rows } = await pool.query<{ bytes: string }>(
		`SELECT sum(pg_total_relation_size(name::regclass))::bigint AS bytes FROM unnest($1::text[]) AS name`,
		[SAVER_TABLES[kind]]
	);
	return Number(rows[0]!.bytes);
}
