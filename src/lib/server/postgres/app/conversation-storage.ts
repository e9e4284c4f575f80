// Conversation rows (storage/conversation-storage.ts ConversationStorage) on PostgreSQL: the sidebar's view
// of each thread. Messages live in the checkpoints.

import type pg from 'pg';
import type { ConversationDeletion, ConversationStorage } from '../../storage/conversation-storage';
import { checkpointSql } from '../checkpoint/store.js';
import { inTransaction } from '../transaction.js';
import { isoText } from './iso-text.js';
import { LOCK_CLAIMS } from './claim-lock.js';
import { claimRun, type ClaimRules } from './run-storage.js';
import { titleFromMessage, toSummary, type SummaryRow } from '../../storage/conversation-records';
import { named } from '../named-statement.js';

// The latest run gives the conversation its status, as in the SQLite store.
const SUMMARY_SELECT = `
	SELECT c.id, c.title, ${isoText('c.created_at')} AS created_at, ${isoText('c.updated_at')} AS updated_at,
	       c.message_count, c.model, r.status, r.error_code, r.error_message
	FROM conversations c
	LEFT JOIN LATERAL (
		SELECT status, error_code, error_message FROM runs
		WHERE conversation_id = c.id ORDER BY started_at DESC, seq DESC LIMIT 1
	) r ON true`;
const NEWEST_FIRST = 'ORDER BY c.updated_at DESC, c.seq DESC';

export function postgresConversationStorage(pool: pg.Pool, rules: ClaimRules): ConversationStorage {
	return {
		async get(id) {
			const { rows } = await pool.query<SummaryRow>(`${SUMMARY_SELECT} WHERE c.id = $1`, [id]);
			return rows[0] && toSummary(rows[0]);
		},

		async exists(id) {
			const { rowCount } = await pool.query(named('sophos_conversation_exists', `SELECT 1 FROM conversations WHERE id = $1`, [id]));
			return (rowCount ?? 0) > 0;
		},

		async firstPage(limit) {
			const { rows } = await pool.query<SummaryRow>(`${SUMMARY_SELECT} ${NEWEST_FIRST} LIMIT $1`, [limit + 1]);
			return { conversations: rows.slice(0, limit).map(toSummary), hasMore: rows.length > limit };
		},

		async createWithRun(id, runId, firstMessage, now, model) {
			const full = new Error('full: roll the new conversation back');
			try {
				return await inTransaction(pool, async (client) => {
					await client.query(`INSERT INTO conversations (id, title, created_at, updated_at, model) VALUES ($1, $2, $3, $3, $4)`, [
						id,
						titleFromMessage(firstMessage),
						now,
						model ?? null
					]);
					const claim = await claimRun(client, { conversationId: id, runId, now, trigger: 'message', input: firstMessage }, rules);
					if (claim === 'full') throw full;
					return 'claimed' as const;
				}, { opening: [LOCK_CLAIMS] });
			} catch (e) {
				if (e === full) return 'full';
				throw e;
			}
		},

		async model(id) {
			const { rows } = await pool.query<{ model: string | null }>(`SELECT model FROM conversations WHERE id = $1`, [id]);
			return rows[0]?.model ?? null;
		},

		async setModel(id, model) {
			await pool.query(`UPDATE conversations SET model = $1 WHERE id = $2`, [model, id]);
		},

		async delete(id) {
			return inTransaction(
				pool,
				async (client): Promise<ConversationDeletion> => {
					// Locked first: a claim's key check on the row waits for this transaction, so no run
					// can start between the check and the delete.
					const { rowCount } = await client.query(`SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE`, [id]);
					if (!rowCount) return 'not-found';
					const running = await client.query(`SELECT 1 FROM runs WHERE conversation_id = $1 AND status = 'running'`, [id]);
					if (running.rowCount) return 'running';
					await checkpointSql.deleteThread(client, id);
					await client.query(`DELETE FROM conversations WHERE id = $1`, [id]);
					return 'deleted';
				},
				{ durable: true }
			);
		}
	};
}
