// The PostgreSQL engine as the runtime opens it: its pool sized by DATABASE_POOL_MAX, and the lease
// heartbeat on a connection of its own, so a busy pool cannot make a live instance's leases end.

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { openPostgresEngine } from '../../src/lib/server/postgres/engine.js';
import type { StorageEngine } from '../../src/lib/server/storage/storage-engine.js';
import { claimedRun } from '../support/pg-instances.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;
let engine: StorageEngine;

beforeAll(async () => {
	database = await createTestDatabase(inject('postgresUrl'), 'engine');
	engine = await openPostgresEngine(
		{ url: database.url, poolMax: 1, eventsKeepMs: 60_000 },
		{ maxConcurrentRuns: 10, maxQueuedMessages: 10 },
		{ instanceId: 'instance-a', leaseMs: 60_000 },
		() => {}
	);
});
afterAll(async () => {
	await engine.close();
	await database.drop();
});

describe('the PostgreSQL engine', () => {
	it("opens through the server's unix socket, named by a URL whose host is the socket's directory", async () => {
		const url = new URL(inject('postgresSocketUrl'));
		url.pathname = `/${database.name}`;
		// Told apart from the other engine's connections to the same database by this name.
		url.searchParams.set('application_name', 'sophos-socket');
		const local = await openPostgresEngine(
			{ url: url.toString(), poolMax: 2, eventsKeepMs: 60_000 },
			{ maxConcurrentRuns: 10, maxQueuedMessages: 10 },
			{ instanceId: 'instance-socket', leaseMs: 60_000 },
			() => {}
		);
		try {
			const { runId } = await claimedRun(local.storage);
			expect((await engine.storage.runs.get(runId))?.status).toBe('running');
			// Its pool's connections have no client address: they are not TCP ones.
			const admin = new pg.Client({ connectionString: database.url });
			await admin.connect();
			try {
				const { rows } = await admin.query<{ tcp: boolean }>(
					`SELECT client_addr IS NOT NULL AS tcp FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
					[database.name, 'sophos-socket']
				);
				expect(rows.length).toBeGreaterThan(0);
				expect(rows.every((row) => !row.tcp)).toBe(true);
			} finally {
				await admin.end();
			}
		} finally {
			await local.close();
		}
	});

	it('renews its leases and looks for expired ones while every pooled connection is taken', async () => {
		const { runId } = await claimedRun(engine.storage);
		expect(engine.pool!.max).toBe(1);
		let release!: () => void;
		const released = new Promise<void>((resolve) => (release = resolve));
		let holding!: () => void;
		const held = new Promise<void>((resolve) => (holding = resolve));
		// A transaction that keeps the pool's one connection until released, as a long run write would.
		const refresh = engine.storage.mcpAuth.refreshUnderLock('server', new Date().toISOString(), async () => {
			holding();
			await released;
			return 'keep';
		});
		await held;
		const read = engine.storage.runs.get(runId);
		expect(engine.pool!.counts()).toEqual({ busy: 1, idle: 0, waiting: 1 });

		expect(await engine.leases!.renew([runId])).toEqual(new Set([runId]));
		expect(await engine.leases!.takeOverExpired()).toEqual([]);
		expect(engine.pool!.counts().waiting).toBe(1);

		release();
		await refresh;
		expect((await read)?.status).toBe('running');
	});
});
