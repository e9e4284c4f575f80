// The app storage contract (storage/app-storage.ts) on PostgreSQL, on the tables of migratePostgres.

import type pg from 'pg';
import type { AppStorage, AppStorageLimits } from '../../storage/app-storage';
import { postgresAllowedToolStorage } from './allowed-tool-storage.js';
import { postgresApprovalStorage } from './approval-storage.js';
import { postgresBranchStorage } from './branch-storage.js';
import { postgresConversationStorage } from './conversation-storage.js';
import { postgresJournalStorage } from './journal-storage.js';
import { postgresQueueStorage } from './queue-storage.js';
import { postgresRunStorage } from './run-storage.js';

export function postgresAppStorage(pool: pg.Pool, limits: AppStorageLimits): AppStorage {
	return {
		conversations: postgresConversationStorage(pool, limits.maxConcurrentRuns),
		runs: postgresRunStorage(pool, limits.maxConcurrentRuns),
		queue: postgresQueueStorage(pool, limits),
		journal: postgresJournalStorage(pool),
		approvals: postgresApprovalStorage(pool, limits.maxConcurrentRuns),
		allowedTools: postgresAllowedToolStorage(pool),
		branches: postgresBranchStorage(pool)
	};
}
