// The message queue (storage/queue-storage.ts QueueStorage) on PostgreSQL.

import type pg from 'pg';
import type { AppStorageLimits } from '../../storage/app-storage';
import type { QueueFull, QueueStorage } from '../../storage/queue-storage';
import { inTransaction } from '../transaction.js';
import { isoText } from './iso-text.js';
import { LOCK_CLAIMS } from './claim-lock.js';
import { claimRun, type ClaimRules } from './run-storage.js';
import { toQueuedMessage, type QueuedRow } from '../../storage/queue-records';
import { named } from '../named-statement.js';

export function postgresQueueStorage(pool: pg.Pool, limits: AppStorageLimits, rules: ClaimRules): QueueStorage {
	return {
		async add(conversationId, id, message, now, queued = {}) {
			return inTransaction(pool, async (client): Promise<'queued' | QueueFull> => {
				// Adds to one conversation take turns on its row, so two instances cannot both take the last place.
				await client.query(`SELECT 1 FROM conversations WHERE id = $1 FOR NO KEY UPDATE`, [conversationId]);
				const { rowCount } = await client.query(
					`INSERT INTO queued_messages (id, conversation_id, message, created_at, edit_of, regenerate, model)
					 SELECT $1, $2, $3, $4, $6, $7, $8 WHERE (SELECT count(*) FROM queued_messages WHERE conversation_id = $2) < $5`,
					[id, conversationId, message, now, limits.maxQueuedMessages, queued.editOf ?? null, queued.regenerate ?? null, queued.model ?? null]
				);
				return rowCount ? 'queued' : { refused: 'queue-full', maxQueuedMessages: limits.maxQueuedMessages };
			});
		},

		async list(conversationId) {
			const { rows } = await pool.query<QueuedRow>(
				`SELECT id, message, ${isoText('created_at')} AS created_at, edit_of, regenerate, model FROM queued_messages
				 WHERE conversation_id = $1 ORDER BY queued_messages.created_at, queued_messages.seq`,
				[conversationId]
			);
			return rows.map(toQueuedMessage);
		},

		async delete(id) {
			await pool.query(`DELETE FROM queued_messages WHERE id = $1`, [id]);
		},

		async conversationsWaiting() {
			const { rows } = await pool.query<{ conversation_id: string }>(
				named('sophos_queue_waiting', `SELECT conversation_id FROM queued_messages GROUP BY conversation_id ORDER BY min(created_at), min(seq)`, [])
			);
			return rows.map((row) => row.conversation_id);
		},

		async countAll() {
			const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM queued_messages`);
			return Number(rows[0]!.n);
		},

		claimQueued: (conversationId, queuedId, run) =>
			inTransaction(pool, async (client) => {
				const claim = await claimRun(client, { conversationId, ...run }, rules);
				if (claim === 'claimed') await client.query(`DELETE FROM queued_messages WHERE id = $1`, [queuedId]);
				return claim;
			}, { opening: [LOCK_CLAIMS] })
	};
}
