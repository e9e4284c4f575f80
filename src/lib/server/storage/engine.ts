// The one place the database engine is chosen: DATABASE_URL=postgres://… puts every table in
// PostgreSQL, shared by any number of processes; unset, the embedded SQLite file. The runtime sees
// only what this returns.

import { randomUUID } from 'node:crypto';
import type { AppStorageLimits } from './app-storage';
import type { StorageEngine } from './storage-engine';
import { openPostgresEngine } from '../postgres/engine';
import { openSqliteEngine } from '../sqlite/engine';

export function openStorageEngine(
	settings: {
		DATABASE_URL?: string;
		DATABASE_POOL_MAX: number;
		RUN_LEASE_MS: number;
		RUN_EVENTS_KEEP_MS: number;
		SOPHOS_INSTANCE_ID?: string;
		paths: { database: string };
	},
	limits: AppStorageLimits,
	log: (line: string, error?: unknown) => void
): Promise<StorageEngine> {
	if (settings.DATABASE_URL !== undefined) return openPostgresEngine(
			{ url: settings.DATABASE_URL, poolMax: settings.DATABASE_POOL_MAX, eventsKeepMs: settings.RUN_EVENTS_KEEP_MS },
			limits,
			{ instanceId: settings.SOPHOS_INSTANCE_ID ?? randomUUID(), leaseMs: settings.RUN_LEASE_MS },
			log
		);
	return Promise.resolve(openSqliteEngine(settings.paths.database, limits, log));
}
