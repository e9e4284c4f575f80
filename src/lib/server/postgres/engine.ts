// The shared engine: every table in one PostgreSQL database, which any number of instances use at once.

import pg from 'pg';
import { DeltaPostgresSaver, migratePostgres, postgresAppStorage } from '../postgres';
import { advanceBranchHead } from '../postgres/app/branch-storage.js';
import { postgresRunLeases } from '../postgres/app/run-leases.js';
import type { RunOwner } from '../postgres/app/run-storage.js';
import { startSharedRuns } from '../postgres/events/shared-runs.js';
import { postgresCheckpointHistory } from '../postgres/checkpoint/history.js';
import type { AppStorageLimits } from '../storage/app-storage';
import type { SharedRuns, StorageEngine } from '../storage/storage-engine';
import { PostgresClient } from './client';
import { MeasuredPool } from './measured-pool';

/**
 * How long opening a connection, or waiting for a free one, may take before the query fails. A
 * connection not opened in time (a server that accepts and never answers, packets dropped on the
 * way) makes its request answer DATABASE_UNAVAILABLE.
 */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * What pg_stat_activity calls each of an instance's connections, so an operator can tell them
 * apart; an application_name in DATABASE_URL names them all instead.
 */
export const APPLICATION_NAMES = { pool: 'sophos', leases: 'sophos-leases', notify: 'sophos-notify' } as const;

/** What the instance's connections are set from (settings.ts). */
export interface PostgresEngineOptions {
	url: string;
	/** DATABASE_POOL_MAX: the pool's size, for runs' writes and requests' reads. */
	poolMax: number;
	/** RUN_EVENTS_KEEP_MS. */
	eventsKeepMs: number;
}

export class DatabaseUnavailableError extends Error {
	override name = 'DatabaseUnavailableError';
}

/** Where the URL points, without its password: what an error may say. */
export function describeDatabase(url: string): string {
	const u = new URL(url);
	const host = u.hostname || u.searchParams.get('host') || 'localhost';
	return `PostgreSQL at ${host}${u.port ? `:${u.port}` : ''}/${decodeURIComponent(u.pathname.slice(1)) || '(default database)'}`;
}

/**
 * Connects, migrates (one instance at a time, under the migrations' lock) and builds the stores.
 * An unreachable server, refused credentials or a missing database stop the start with a
 * DatabaseUnavailableError that names the server but not the password.
 */
export async function openPostgresEngine(
	options: PostgresEngineOptions,
	limits: AppStorageLimits,
	owner: RunOwner,
	log: (line: string, error?: unknown) => void
): Promise<StorageEngine> {
	const { url } = options;
	const where = describeDatabase(url);
	const pool = new MeasuredPool({
		connectionString: url,
		max: options.poolMax,
		connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
		application_name: APPLICATION_NAMES.pool,
		// Statements a transaction sends together go out in one round trip (transaction.ts sendTogether).
		pipeline: true,
		Client: PostgresClient
	});
	// An idle connection the server closed (a restart) is dropped from the pool; the next query opens a new one.
	pool.on('error', (e) => log(`${where}: an idle connection failed (${e.message}); it is replaced on next use`));
	const leasePool = openLeaseConnection(url);
	leasePool.on('error', (e) => log(`${where}: the lease heartbeat's connection failed (${e.message}); it is replaced on the next beat`));
	let shared: SharedRuns;
	try {
		await migratePostgres(pool);
		shared = await startSharedRuns(pool, { client: { connectionString: url, application_name: APPLICATION_NAMES.notify }, keepMs: options.eventsKeepMs, leaseMs: owner.leaseMs, log });
	} catch (e) {
		await Promise.allSettled([pool.end(), leasePool.end()]);
		const code = (e as { code?: string }).code;
		throw new DatabaseUnavailableError(`Cannot open ${where}: ${(e as Error).message}${code ? ` (${code})` : ''}`, { cause: e });
	}
	const saver = new DeltaPostgresSaver(pool, {
		onPut: async ({ threadId, ns, checkpointId, parentId }) =>
			ns === '' && parentId !== undefined ? advanceBranchHead(threadId, parentId, checkpointId) : undefined,
		// A run's steps carry its id: only its owner may write them. A write outside a run (a state update) is not fenced.
		fence: (config) => {
			const runId = config.configurable?.run_id;
			return typeof runId === 'string' ? { runId, owner: owner.instanceId } : undefined;
		}
	});
	return {
		kind: 'postgres',
		where: `${where} as instance ${owner.instanceId}`,
		storage: postgresAppStorage(pool, limits, owner),
		pool,
		leases: postgresRunLeases(leasePool, owner),
		shared,
		checkpointer: saver,
		history: postgresCheckpointHistory(pool),
		async ping() {
			await pool.query('SELECT 1');
		},
		async close() {
			await shared.close();
			await Promise.all([pool.end(), leasePool.end()]);
		}
	};
}

/**
 * The lease heartbeat's connection, one of its own: in the shared pool its renewals queued behind
 * the runs' writes, and under 3 instances × 50 runs waited out leases of live instances, whose runs
 * were then taken over and fenced (issue 26). Kept open between beats, however far apart, with
 * keep-alive probes to find a peer that vanished. A renewal slower than a lease (a loaded machine)
 * is late, not wrong: its answer still says which runs another instance took, so no timeout cuts it.
 */
function openLeaseConnection(url: string): pg.Pool {
	return new pg.Pool({
		connectionString: url,
		max: 1,
		idleTimeoutMillis: 0,
		connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
		keepAlive: true,
		keepAliveInitialDelayMillis: 10_000,
		application_name: APPLICATION_NAMES.leases,
		Client: PostgresClient
	});
}
