// The instance's pool on a real PostgreSQL: what its metrics say of connections, waiting checkouts
// and checkout waits, as GET /api/metrics shows them.

import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MeasuredPool } from '../../src/lib/server/postgres/measured-pool.js';
import { registerPoolMetrics } from '../../src/lib/server/telemetry/pool-metrics.js';
import { promtoolCheck, samples } from '../support/prometheus.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;

beforeAll(async () => {
	database = await createTestDatabase(inject('postgresUrl'), 'pool');
});
afterAll(() => database.drop());

describe('MeasuredPool', () => {
	it('reports its connections, the checkouts waiting for one, and every checkout’s wait', async () => {
		const pool = new MeasuredPool({ connectionString: database.url, max: 1 });
		const registry = new Registry();
		const dispose = registerPoolMetrics(registry, pool);
		const figures = async () => {
			const text = await registry.metrics();
			expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
			return {
				...samples(text, 'sophos_db_pool_max_connections'),
				...samples(text, 'sophos_db_pool_connections'),
				...samples(text, 'sophos_db_pool_waiting_clients'),
				...samples(text, 'sophos_db_pool_wait_seconds_count')
			};
		};
		try {
			expect(await figures()).toEqual({
				sophos_db_pool_max_connections: 1,
				'sophos_db_pool_connections{state="busy"}': 0,
				'sophos_db_pool_connections{state="idle"}': 0,
				sophos_db_pool_waiting_clients: 0,
				sophos_db_pool_wait_seconds_count: 0
			});
			const held = await pool.connect();
			// pool.query checks out through connect too: it waits for the one connection.
			const queued = pool.query<{ n: number }>('SELECT 2 AS n');
			expect(await figures()).toEqual({
				sophos_db_pool_max_connections: 1,
				'sophos_db_pool_connections{state="busy"}': 1,
				'sophos_db_pool_connections{state="idle"}': 0,
				sophos_db_pool_waiting_clients: 1,
				sophos_db_pool_wait_seconds_count: 1
			});
			held.release();
			expect((await queued).rows).toEqual([{ n: 2 }]);
			expect(await figures()).toMatchObject({
				'sophos_db_pool_connections{state="busy"}': 0,
				'sophos_db_pool_connections{state="idle"}': 1,
				sophos_db_pool_waiting_clients: 0,
				sophos_db_pool_wait_seconds_count: 2
			});
			dispose();
			await pool.query('SELECT 1');
			expect((await figures()).sophos_db_pool_wait_seconds_count).toBe(2);
		} finally {
			await pool.end();
		}
	});

	it('counts a checkout that gave up waiting, with its error passed on', async () => {
		const pool = new MeasuredPool({ connectionString: database.url, max: 1, connectionTimeoutMillis: 50 });
		const waits: number[] = [];
		pool.onCheckout((seconds) => waits.push(seconds));
		try {
			const held = await pool.connect();
			await expect(pool.query('SELECT 1')).rejects.toThrow('timeout exceeded when trying to connect');
			expect(waits).toHaveLength(2);
			held.release();
		} finally {
			await pool.end();
		}
	});
});
