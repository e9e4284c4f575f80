// Branches (storage/branch-storage.ts BranchStorage) on PostgreSQL, and the two writes that go inside
// other operations' transactions: a run starting a branch, and a put moving the head.

import type pg from 'pg';
import type { BranchStorage } from '../../storage/branch-storage';
import type { PutRider } from '../checkpoint/put-statements.js';
import type { Queryable } from '../checkpoint/store.js';
import { inTransaction } from '../transaction.js';
import { LOCK_CLAIMS } from './claim-lock.js';

/** In the claim's transaction: the branch the claimed run starts begins at `checkpointId`. */
export async function startBranchAt(q: Queryable, conversationId: string, checkpointId: string): Promise<void> {
	await q.query(
		`INSERT INTO conversation_branches (conversation_id, head) VALUES ($1, $2)
		 ON CONFLICT (conversation_id) DO UPDATE SET head = EXCLUDED.head`,
		[conversationId, checkpointId]
	);
}

/**
 * With the put (DeltaPostgresSaver's onPut, in its write statement): a checkpoint stored with
 * `parentId` as its parent moves the head to it if the parent was the head, so the head never lags
 * its branch.
 */
export function advanceBranchHead(conversationId: string, parentId: string, checkpointId: string): PutRider {
	return {
		sql: ([head, conversation, parent], when) => `UPDATE conversation_branches SET head = ${head} WHERE conversation_id = ${conversation} AND head = ${parent} AND ${when}`,
		params: [checkpointId, conversationId, parentId]
	};
}

export function postgresBranchStorage(pool: pg.Pool): BranchStorage {
	const row = async (conversationId: string) =>
		(
			await pool.query<{ head: string; switched_after_run: string | null }>(
				`SELECT head, switched_after_run FROM conversation_branches WHERE conversation_id = $1`,
				[conversationId]
			)
		).rows[0];
	return {
		head: async (conversationId) => (await row(conversationId))?.head,
		switchedAfterRun: async (conversationId) => (await row(conversationId))?.switched_after_run ?? null,
		switchTo: (conversationId, checkpointId, shown) =>
			inTransaction(
				pool,
				async (client) => {
				const { rows } = await client.query<{ busy: boolean; waiting: boolean }>(
					`SELECT EXISTS (SELECT 1 FROM runs WHERE conversation_id = $1 AND status = 'running') AS busy,
					        EXISTS (SELECT 1 FROM tool_approvals WHERE thread_id = $1 AND decision IS NULL) AS waiting`,
					[conversationId]
				);
				if (rows[0]!.busy) return 'busy';
				if (rows[0]!.waiting) return 'waiting';
				await client.query(
					`INSERT INTO conversation_branches (conversation_id, head, switched_after_run)
					 VALUES ($1, $2, (SELECT id FROM runs WHERE conversation_id = $1 ORDER BY started_at DESC, seq DESC LIMIT 1))
					 ON CONFLICT (conversation_id) DO UPDATE SET head = EXCLUDED.head, switched_after_run = EXCLUDED.switched_after_run`,
					[conversationId, checkpointId]
				);
				await client.query(`UPDATE conversations SET message_count = $1, updated_at = coalesce($2, updated_at) WHERE id = $3`, [
					shown.messageCount,
					shown.updatedAt ?? null,
					conversationId
				]);
				return 'switched';
				},
				{ opening: [LOCK_CLAIMS] }
			)
	};
}
