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

/** Connections per instance: runs' checkpoint puts and journal writes, requests' reads. */
const POOL_SIZE = 10;
/**
 * How long opening a connection, or waiting for a free one, may take before the query fails. A
 * connection not opened in time (a server that accepts and never answers, packets dropped on the
 * way) makes its request answer DATABASE_UNAVAILABLE.
 */
const CONNECT_TIMEOUT_MS = 10_000;

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
	url: string,
	limits: AppStorageLimits,
	owner: RunOwner,
	eventsKeepMs: number,
	log: (line: string, error?: unknown) => void
): Promise<StorageEngine> {
	const where = describeDatabase(url);
	const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, Client: PostgresClient });
	// An idle connection the server closed (a restart) is dropped from the pool; the next query opens a new one.
	pool.on('error', (e) => log(`${where}: an idle connection failed (${e.message}); it is replaced on next use`));
	let shared: SharedRuns;
	try {
		await migratePostgres(pool);
		shared = await startSharedRuns(pool, { url, keepMs: eventsKeepMs, leaseMs: owner.leaseMs, log });
	} catch (e) {
		await pool.end().catch(() => {});
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
		leases: postgresRunLeases(pool, owner),
		shared,
		checkpointer: saver,
		history: postgresCheckpointHistory(pool),
		async ping() {
			await pool.query('SELECT 1');
		},
		async close() {
			await shared.close();
			await pool.end();
		}
	};
}
