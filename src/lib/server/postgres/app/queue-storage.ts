// The message queue (storage/app-storage.ts QueueStorage) on PostgreSQL.

import type pg from 'pg';
import type { QueueStorage } from '../../storage/app-storage';
import { inTransaction } from '../transaction.js';
import { isoText } from './iso-text.js';
import { claimRun } from './run-storage.js';

type QueuedRow = { id: string; message: string; created_at: string };

// The column, not the ISO text of the same name in the select list.
const OLDEST_FIRST = 'ORDER BY queued_messages.created_at, queued_messages.seq';

export function postgresQueueStorage(pool: pg.Pool): QueueStorage {
	const toMessage = (row: QueuedRow) => ({ id: row.id, message: row.message, createdAt: row.created_at });
	return {
		async add(conversationId, id, message, now) {
			await pool.query(`INSERT INTO queued_messages (id, conversation_id, message, created_at) VALUES ($1, $2, $3, $4)`, [
				id,
				conversationId,
				message,
				now
			]);
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
				`SELECT conversation_id FROM queued_messages GROUP BY conversation_id ORDER BY min(seq)`
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
				if (!(await claimRun(client, { conversationId, runId, now, trigger: 'message', input: next.message }))) return undefined;
				await client.query(`DELETE FROM queued_messages WHERE id = $1`, [next.id]);
				return toMessage(next);
			});
		}
	};
}
