// The app storage contract (storage/app-storage.ts) on PostgreSQL, on the tables of migratePostgres.

import type pg from 'pg';
import type { AppStorage } from '../../storage/app-storage';
import { postgresAllowedToolStorage } from './allowed-tool-storage.js';
import { postgresApprovalStorage } from './approval-storage.js';
import { postgresConversationStorage } from './conversation-storage.js';
import { postgresJournalStorage } from './journal-storage.js';
import { postgresQueueStorage } from './queue-storage.js';
import { postgresRunStorage } from './run-storage.js';

export function postgresAppStorage(pool: pg.Pool): AppStorage {
	return {
		conversations: postgresConversationStorage(pool),
		runs: postgresRunStorage(pool),
		queue: postgresQueueStorage(pool),
		journal: postgresJournalStorage(pool),
		approvals: postgresApprovalStorage(pool),
		allowedTools: postgresAllowedToolStorage(pool)
	};
}
