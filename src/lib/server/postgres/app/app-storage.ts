// The app storage contract (storage/app-storage.ts) on PostgreSQL, on the tables of migratePostgres.

import type pg from 'pg';
import type { AppStorage, AppStorageLimits } from '../../storage/app-storage';
import type { RunOwner } from './run-storage.js';
import { postgresAllowedToolStorage } from './allowed-tool-storage.js';
import { postgresApprovalStorage } from './approval-storage.js';
import { postgresBranchStorage } from './branch-storage.js';
import { postgresConversationStorage } from './conversation-storage.js';
import { postgresJournalStorage } from './journal-storage.js';
import { postgresMcpAuthStorage } from './mcp-auth-storage.js';
import { postgresQueueStorage } from './queue-storage.js';
import { postgresRunStorage } from './run-storage.js';
import { postgresSessionStorage } from './session-storage.js';
import { postgresThreadStorage } from './thread-storage.js';
import { postgresTransferStorage } from './transfer-storage.js';

/** `owner`: this instance, which owns the runs it claims and alone may write them (run-leases.ts). */
export function postgresAppStorage(pool: pg.Pool, limits: AppStorageLimits, owner: RunOwner): AppStorage {
	const rules = { maxConcurrentRuns: limits.maxConcurrentRuns, owner };
	return {
		conversations: postgresConversationStorage(pool, rules),
		threads: postgresThreadStorage(pool),
		runs: postgresRunStorage(pool, rules),
		queue: postgresQueueStorage(pool, limits, rules),
		journal: postgresJournalStorage(pool, owner),
		approvals: postgresApprovalStorage(pool, rules),
		allowedTools: postgresAllowedToolStorage(pool),
		branches: postgresBranchStorage(pool),
		sessions: postgresSessionStorage(pool),
		transfer: postgresTransferStorage(pool),
		mcpAuth: postgresMcpAuthStorage(pool)
	};
}
