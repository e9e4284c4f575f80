// Two Sophos instances on one PostgreSQL database, in one test process: each its own pool, notify
// bus and storage, as two `npm start` processes would have them.

import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { migratePostgres, postgresAppStorage } from '../../src/lib/server/postgres/index.js';
import { NotifyBus } from '../../src/lib/server/postgres/notify-bus.js';
import { postgresRunLeases } from '../../src/lib/server/postgres/app/run-leases.js';
import { RemoteReaders } from '../../src/lib/server/postgres/events/run-readers.js';
import type { AppStorage } from '../../src/lib/server/storage/app-storage.js';
import type { RunLeases } from '../../src/lib/server/storage/run-leases.js';
import type { RunState } from '../../src/lib/server/postgres/events/run-cancel.js';
import { Mailbox } from './mailbox.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

export type Instance = {
	name: string;
	pool: pg.Pool;
	bus: NotifyBus;
	storage: AppStorage;
	leases: RunLeases;
	/** Its readers of runs the other executes, as a remote reader counts them. */
	readers: RemoteReaders;
	/** What the instance logged. */
	logs: Mailbox<string>;
};

export type Instances = {
	database: TestDatabase;
	a: Instance;
	b: Instance;
	/** New connections to the database refused (false), as while PostgreSQL is down, or taken again. */
	allowConnections(allowed: boolean): Promise<void>;
	/** Ends the server side of every connection of that application_name (`instance-a`, `bus-b`, ...). */
	terminate(applicationName: string): Promise<void>;
	close(): Promise<void>;
};

export async function startInstances(prefix: string): Promise<Instances> {
	const database = await createTestDatabase(inject('postgresUrl'), prefix);
	const start = async (name: string): Promise<Instance> => {
		const pool = new pg.Pool({ connectionString: database.url, max: 4, application_name: `instance-${name}` });
		const logs = new Mailbox<string>();
		const log = (message: string) => logs.post(message);
		// An idle connection that PostgreSQL ends (a test terminating it) is dropped by the pool, which says so here.
		pool.on('error', (error) => log(`pool: ${error.message}`));
		const bus = new NotifyBus({ client: { connectionString: database.url, application_name: `bus-${name}` }, log, reconnectDelayMs: { first: 10, last: 50 } });
		await bus.start();
		const owner = { instanceId: `instance-${name}`, leaseMs: 60_000 };
		const storage = postgresAppStorage(pool, { maxConcurrentRuns: 100, maxQueuedMessages: 100 }, owner);
		return { name, pool, bus, storage, leases: postgresRunLeases(pool, owner), readers: new RemoteReaders({ pool, bus, log }, owner.leaseMs), logs };
	};
	const a = await start('a');
	await migratePostgres(a.pool);
	const b = await start('b');
	const admin = new pg.Client({ connectionString: inject('postgresUrl') });
	await admin.connect();
	return {
		database,
		a,
		b,
		async allowConnections(allowed) {
			await admin.query(`ALTER DATABASE "${database.name}" WITH ALLOW_CONNECTIONS ${allowed}`);
		},
		async terminate(applicationName) {
			await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [
				database.name,
				applicationName
			]);
		},
		async close() {
			await admin.end();
			for (const instance of [a, b]) {
				instance.readers.close();
				await instance.bus.close();
				await instance.pool.end();
			}
			await database.drop();
		}
	};
}

/**
 * Two instances for a test file, started before its tests and closed after them. The objects are
 * returned at once and filled in by the hook, so a file can destructure them at its top level.
 */
export function useInstances(prefix: string): Instances {
	const a = {} as Instance;
	const b = {} as Instance;
	const handle = { a, b } as Instances;
	beforeAll(async () => {
		const started = await startInstances(prefix);
		Object.assign(a, started.a);
		Object.assign(b, started.b);
		Object.assign(handle, started, { a, b });
	});
	afterAll(() => handle.close());
	return handle;
}

/** What the run's owner not renewing its lease for RUN_LEASE_MS leaves: a lease that has ended. */
export async function endLease(instance: Instance, runId: string): Promise<void> {
	await instance.pool.query(`UPDATE runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [runId]);
}

/** A new conversation with a running message run, as POST /api/chat leaves it. */
export async function claimedRun(storage: AppStorage): Promise<{ conversationId: string; runId: string }> {
	const conversationId = randomUUID();
	const runId = randomUUID();
	const claim = await storage.conversations.createWithRun(conversationId, runId, 'hello', new Date().toISOString());
	if (claim !== 'claimed') throw new Error(`claim: ${claim}`);
	return { conversationId, runId };
}

/** What the events/ modules take of an instance: its pool, its bus, and its log. */
export const eventParts = (instance: Instance) => ({ pool: instance.pool, bus: instance.bus, log: (m: string) => instance.logs.post(m) });

/** What a reader of another instance's run on `instance` is read with (postgres/events/remote-event-response.ts), quiet. */
export const remoteParts = (instance: Instance) => ({
	pool: instance.pool,
	bus: instance.bus,
	readers: instance.readers,
	counts: new Map<string, number>(),
	log: () => {}
});

/** The runs row as the lead's lease will say it: here every owner holds its lease unless told. */
export const runStateFrom =
	(instance: Instance, ownerAlive = true) =>
	async (runId: string): Promise<RunState | undefined> => {
		const run = await instance.storage.runs.get(runId);
		return run && { status: run.status, ownerAlive };
	};
