// The PostgreSQL engine as the runtime opens it: its pool sized by DATABASE_POOL_MAX, and the lease
// heartbeat on a connection of its own, so a busy pool cannot make a live instance's leases end.

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
