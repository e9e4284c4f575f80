// The app storage contract (storage/app-storage.ts) on the SQLite file: the synchronous stores of this
// folder behind promises, with the contract's atomic operations as transactions of the connection.

import type Database from 'better-sqlite3';
import type { RunTrigger } from '../../protocol';
import type { DeltaSqliteSaver } from './checkpoint';
import { BranchStore } from './branch-store';
import { deleteConversation } from './conversation-deletion';
import { ConversationStore } from './conversation-store';
import { commitDurably } from './durable-commit';
import { MessageQueue } from './message-queue';
import { RunStore } from './run-store';
import { SessionStore } from './session-store';
import { ThreadStore } from './thread-store';
import { sqliteMcpAuthStorage } from './mcp-auth-store';
import { AllowedTools } from './allowed-tools';
import { ApprovalJournal } from './approval-journal';
import { ToolJournal } from './tool-journal';
import { sqliteTransferStorage } from './conversation-transfer';
import type { AppStorage, AppStorageLimits } from '../storage/app-storage';
import type { Claim } from '../storage/run-storage';

export interface SqliteAppStorageOptions {
	limits: AppStorageLimits;
	/** Where a deletion reports the WAL checkpoint that follows it. */
	log: (line: string) => void;
}

/**
 * `db` opened (and so migrated) by openDatabase; `saver` on the same connection, its onPut moving
 * branch heads (BranchStore.advance), as the runtime builds it.
 */
export function sqliteAppStorage(db: Database.Database, saver: DeltaSqliteSaver, options: SqliteAppStorageOptions): AppStorage {
	const { limits, log } = options;
	const conversations = new ConversationStore(db);
	const threads = new ThreadStore(db);
	const runs = new RunStore(db);
	const queue = new MessageQueue(db, limits.maxQueuedMessages);
	const journal = new ToolJournal(db);
	const approvals = new ApprovalJournal(db);
	const allowed = new AllowedTools(db);
	const branches = new BranchStore(db);
	const sessions = new SessionStore(db);
	// Synchronous, so nothing slips between the count and the claim in this process.
	const claim = (conversationId: string, runId: string, now: string, trigger: RunTrigger, input: string | null, model?: string): Claim => {
		if (!conversations.exists(conversationId)) return 'missing';
		if (runs.countRunning() >= limits.maxConcurrentRuns) return runs.hasRunning(conversationId) ? 'busy' : 'full';
		return runs.claim(conversationId, runId, now, trigger, input, model) ? 'claimed' : 'busy';
	};
	/** The claim, and when it succeeds whatever goes with it, in one transaction. */
	const claimWith = (
		conversationId: string,
		run: { runId: string; now: string; trigger: RunTrigger; input: string | null; branchFrom?: string; model?: string },
		also: () => void = () => {}
	): Claim =>
		conversations.transaction(() => {
			const claimed = claim(conversationId, run.runId, run.now, run.trigger, run.input, run.model);
			if (claimed !== 'claimed') return claimed;
			if (run.branchFrom !== undefined) branches.startBranchAt(conversationId, run.branchFrom);
			also();
			return claimed;
		});
	return {
		conversations: {
			get: async (id) => conversations.get(id),
			exists: async (id) => conversations.exists(id),
			firstPage: async (limit) => conversations.firstPage(limit),
			async createWithRun(id, runId, firstMessage, now, model) {
				const rollBack = new Error('full: roll the new conversation back');
				try {
					conversations.transaction(() => {
						conversations.create(id, firstMessage, now, model);
						if (claim(id, runId, now, 'message', firstMessage) === 'full') throw rollBack;
					});
					return 'claimed';
				} catch (e) {
					if (e === rollBack) return 'full';
					throw e;
				}
			},
			model: async (id) => conversations.model(id),
			setModel: async (id, model) => conversations.setModel(id, model),
			delete: async (id) => deleteConversation({ db, conversations, runs, saver, log }, id)
		},
		threads: {
			create: async (id, now, metadata) => threads.create(id, now, metadata),
			get: async (id) => threads.get(id),
			mergeMetadata: async (id, patch) => threads.mergeMetadata(id, patch),
			search: async (filter, page) => threads.search(filter, page),
			count: async (filter) => threads.count(filter)
		},
		runs: {
			claim: async (conversationId, runId, now, trigger, input, also) =>
				claimWith(conversationId, { runId, now, trigger, input, ...also }),
			touchConversation: async (conversationId, now) => runs.touchConversation(conversationId, now),
			releaseClaim: async (runId) => runs.releaseClaim(runId),
			finish: async (runId, outcome, now) => runs.finish(runId, outcome, now),
			get: async (runId) => runs.get(runId),
			hasRunning: async (conversationId) => runs.hasRunning(conversationId),
			list: async (conversationId) => runs.list(conversationId),
			listRunning: async () => runs.listRunning(),
			countWaiting: async () => runs.countWaiting(),
			opening: async (conversationId) => ({
				model: conversations.model(conversationId),
				head: branches.head(conversationId),
				awaitingDecision: approvals.pending(conversationId).length > 0,
				latestRuns: runs.latest(conversationId)
			})
		},
		queue: {
			add: async (conversationId, id, message, now, queued) => queue.add(conversationId, id, message, now, queued),
			list: async (conversationId) => queue.list(conversationId),
			delete: async (id) => queue.delete(id),
			conversationsWaiting: async () => queue.conversationsWaiting(),
			countAll: async () => queue.countAll(),
			claimQueued: async (conversationId, queuedId, run) => claimWith(conversationId, run, () => queue.delete(queuedId))
		},
		journal: {
			get: async (threadId, toolCallId) => journal.get(threadId, toolCallId),
			succeededWith: async (threadId, tool, argsHash) => journal.succeededWith(threadId, tool, argsHash),
			recordIntent: async (entry, now, durable) => journal.recordIntent(entry, now, durable),
			recordOutcome: async (threadId, toolCallId, _runId, outcome, now) => journal.recordOutcome(threadId, toolCallId, outcome, now)
		},
		approvals: {
			request: async (threadId, runId, requests, now, expiresAt) => approvals.request(threadId, runId, requests, now, expiresAt),
			pending: async (threadId) => approvals.pending(threadId),
			decision: async (threadId, toolCallId, attempt) => approvals.decision(threadId, toolCallId, attempt),
			async decideWithRun(conversationId, runId, now, check) {
				return commitDurably(db, () => {
					const claimed = claim(conversationId, runId, now, 'approval', null);
					if (claimed !== 'claimed') return claimed;
					const checked = check(approvals.pending(conversationId));
					approvals.record(conversationId, checked, now);
					for (const d of checked) if (d.remember) allowed.allow(d.tool, now);
					return claimed;
				});
			},
			denyPending: async (threadId, reason, now) => approvals.denyPending(threadId, reason, now),
			expiredThreads: async (now) => approvals.expiredThreads(now),
			nextExpiryAt: async () => approvals.nextExpiryAt()
		},
		allowedTools: {
			list: async () => allowed.list(),
			has: async (tool) => allowed.has(tool),
			allow: async (tool, now) => allowed.allow(tool, now),
			revoke: async (tool) => allowed.revoke(tool)
		},
		branches: {
			head: async (conversationId) => branches.head(conversationId),
			switchedAfterRun: async (conversationId) => branches.switchedAfterRun(conversationId),
			switchTo: async (conversationId, checkpointId, shown) =>
				conversations.transaction(() => {
					if (runs.hasRunning(conversationId)) return 'busy';
					if (approvals.pending(conversationId).length) return 'waiting';
					branches.switchTo(conversationId, checkpointId, runs.list(conversationId)[0]?.id ?? null);
					conversations.showBranch(conversationId, shown.messageCount, shown.updatedAt);
					return 'switched';
				})
		},
		sessions: {
			create: async (digest, expiresAt) => sessions.create(digest, expiresAt),
			isLive: async (digest, now) => sessions.isLive(digest, now),
			delete: async (digest) => sessions.delete(digest),
			prune: async (now) => sessions.prune(now)
		},
		transfer: sqliteTransferStorage(db),
		mcpAuth: sqliteMcpAuthStorage(db)
	};
}
