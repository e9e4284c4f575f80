// The message queue (storage/app-storage.ts QueueStorage) on PostgreSQL.

import type pg from 'pg';
import { ApiError } from '../../errors';
import type { AppStorageLimits, QueueStorage } from '../../storage/app-storage';
import { inTransaction } from '../transaction.js';
import { isoText } from './iso-text.js';
import { claimRun } from './run-storage.js';

type QueuedRow = { id: string; message: string; created_at: string };

// The column, not the ISO text of the same name in the select list.
const OLDEST_FIRST = 'ORDER BY queued_messages.created_at, queued_messages.seq';

export function postgresQueueStorage(pool: pg.Pool, limits: AppStorageLimits): QueueStorage {
	const toMessage = (row: QueuedRow) => ({ id: row.id, message: row.message, createdAt: row.created_at });
	return {
		async add(conversationId, id, message, now) {
			await inTransaction(pool, async (client) => {
				// Adds to one conversation take turns on its row, so two instances cannot both take the last place.
				await client.query(`SELECT 1 FROM conversations WHERE id = $1 FOR NO KEY UPDATE`, [conversationId]);
				const { rowCount } = await client.query(
					`INSERT INTO queued_messages (id, conversation_id, message, created_at)
					 SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM queued_messages WHERE conversation_id = $2) < $5`,
					[id, conversationId, message, now, limits.maxQueuedMessages]
				);
				if (!rowCount) {
					throw new ApiError(
						'QUEUE_FULL',
						`This conversation already has ${limits.maxQueuedMessages} queued messages (MAX_QUEUED_MESSAGES): wait until they have run`
					);
				}
			});
		},

		async list(conversationId) {
			const { rows } = await pool.query<QueuedRow>(
				`SELECT id, message, ${isoText('created_at')} AS created_at FROM queued_messages WHERE conversation_id = $1 ${OLDEST_FIRST}`,
				[conversationId]
			);
			return rows.map(toMessage);
		},

		async conversationsWaiting() {
			const { rows } = await pool.query<{ conversation_id: string }>(
				`SELECT conversation_id FROM queued_messages GROUP BY conversation_id ORDER BY min(created_at), min(seq)`
			);
			return rows.map((row) => row.conversation_id);
		},

		async claimNext(conversationId, runId, now) {
			return inTransaction(pool, async (client) => {
				// Locked, so two instances claiming at once cannot both take it.
				const { rows } = await client.query<QueuedRow>(
					`SELECT id, message, ${isoText('created_at')} AS created_at FROM queued_messages WHERE conversation_id = $1 ${OLDEST_FIRST} LIMIT 1 FOR UPDATE`,
					[conversationId]
				);
				const next = rows[0];
				if (!next) return undefined;
				const claim = await claimRun(client, { conversationId, runId, now, trigger: 'message', input: next.message }, limits.maxConcurrentRuns);
				if (claim === 'claimed') await client.query(`DELETE FROM queued_messages WHERE id = $1`, [next.id]);
				return { claim, message: toMessage(next) };
			});
		}
	};
}
