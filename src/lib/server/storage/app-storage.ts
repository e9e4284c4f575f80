// The app's storage contract: what the runtime asks of conversations, runs, the message queue, the
// tool call journal, approvals and branches, asynchronous and engine-independent, so one runtime can run on the
// embedded SQLite file or on a PostgreSQL database shared by several processes. Each store's contract
// is a file of its own beside this one (conversation-storage.ts, run-storage.ts, queue-storage.ts, …);
// this names the whole. Implemented by sqlite/app-storage.ts and postgres/app/; both pass one shared
// suite (test/support/app-storage-suite.ts). Operations that must be atomic are operations of their
// own, not transactions a caller composes, and the limits that hold across processes
// (MAX_CONCURRENT_RUNS, MAX_QUEUED_MESSAGES) are kept where the rows are written.

import type { AllowedToolStorage, ApprovalStorage } from './approval-storage';
import type { BranchStorage } from './branch-storage';
import type { ConversationStorage } from './conversation-storage';
import type { JournalStorage } from './journal-storage';
import type { McpAuthStorage } from './mcp-auth-storage';
import type { QueueStorage } from './queue-storage';
import type { RunStorage } from './run-storage';
import type { SessionStorage } from './session-storage';
import type { ThreadStorage } from './thread-storage';
import type { TransferStorage } from './transfer-storage';

export interface AppStorageLimits {
	/** MAX_CONCURRENT_RUNS: runs holding a claim at once, counted over every process on the database. */
	maxConcurrentRuns: number;
	/** MAX_QUEUED_MESSAGES: messages waiting on one conversation. */
	maxQueuedMessages: number;
}

export interface AppStorage {
	conversations: ConversationStorage;
	threads: ThreadStorage;
	runs: RunStorage;
	queue: QueueStorage;
	journal: JournalStorage;
	approvals: ApprovalStorage;
	allowedTools: AllowedToolStorage;
	branches: BranchStorage;
	sessions: SessionStorage;
	transfer: TransferStorage;
	mcpAuth: McpAuthStorage;
}
