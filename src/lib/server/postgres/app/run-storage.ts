// The run ledger (storage/app-storage.ts RunStorage) on PostgreSQL.

import type pg from 'pg';
import type { RunTrigger } from '../../../protocol';
import { toRecord, type RunRow } from '../../db/run-store';
import type { RunStorage } from '../../storage/app-storage';
import type { Queryable } from '../checkpoint/store.js';
import { isoText } from './iso-text.js';

const RUN_COLUMNS = `id, conversation_id, status, trigger, input, error_code, error_message,
	${isoText('started_at')} AS started_at, ${isoText('finished_at')} AS finished_at`;

/**
 * Inserts a `running` run unless one holds the conversation (the partial unique index decides,
 * across every connection); a message run moves the conversation to the top of the list in the
 * same statement. Returns whether the run was claimed. Shared by the operations that claim.
 */
export async function claimRun(
	q: Queryable,
	run: { conversationId: string; runId: string; now: string; trigger: RunTrigger; input: string | null }
): Promise<boolean> {
	const { rows } = await q.query<{ claimed: boolean }>(
		`WITH claimed AS (
			INSERT INTO runs (id, conversation_id, status, trigger, input, started_at)
			VALUES ($1, $2, 'running', $3, $4, $5)
			ON CONFLICT (conversation_id) WHERE status = 'running' DO NOTHING
			RETURNING conversation_id
		), touched AS (
			UPDATE conversations c SET updated_at = $5 FROM claimed
			WHERE c.id = claimed.conversation_id AND $3 = 'message'
		)
		SELECT EXISTS (SELECT 1 FROM claimed) AS claimed`,
		[run.runId, run.conversationId, run.trigger, run.input, run.now]
	);
	return rows[0]!.claimed;
}

export function postgresRunStorage(pool: pg.Pool): RunStorage {
	return {
		claim: (conversationId, runId, now, trigger, input) => claimRun(pool, { conversationId, runId, now, trigger, input }),

		async touchConversation(conversationId, now) {
			await pool.query(`UPDATE conversations SET updated_at = $1 WHERE id = $2`, [now, conversationId]);
		},

		async releaseClaim(runId) {
			await pool.query(`DELETE FROM runs WHERE id = $1 AND status = 'running'`, [runId]);
		},

		async finish(runId, outcome, now) {
			const { rows } = await pool.query<{ finished: boolean }>(
				`WITH finished AS (
					UPDATE runs SET status = $2, error_code = $3, error_message = $4, finished_at = $5
					WHERE id = $1 AND status = 'running'
					RETURNING conversation_id
				), touched AS (
					UPDATE conversations c SET updated_at = $5, message_count = $6 FROM finished WHERE c.id = finished.conversation_id
				)
				SELECT EXISTS (SELECT 1 FROM finished) AS finished`,
				[runId, outcome.status, outcome.error?.code ?? null, outcome.error?.message ?? null, now, outcome.messageCount]
			);
			return rows[0]!.finished;
		},

		async get(runId) {
			const { rows } = await pool.query<RunRow & { conversation_id: string }>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [runId]);
			return rows[0] && { ...toRecord(rows[0]), conversationId: rows[0].conversation_id };
		},

		async hasRunning(conversationId) {
			const { rowCount } = await pool.query(`SELECT 1 FROM runs WHERE conversation_id = $1 AND status = 'running'`, [
				conversationId
			]);
			return (rowCount ?? 0) > 0;
		},

		async list(conversationId) {
			const { rows } = await pool.query<RunRow>(
				`SELECT ${RUN_COLUMNS} FROM runs WHERE conversation_id = $1 ORDER BY runs.started_at DESC, runs.seq DESC`,
				[conversationId]
			);
			return rows.map(toRecord);
		},

		async listRunning() {
			const { rows } = await pool.query<{ id: string; conversation_id: string }>(
				`SELECT id, conversation_id FROM runs WHERE status = 'running' ORDER BY seq`
			);
			return rows.map((row) => ({ id: row.id, conversationId: row.conversation_id }));
		}
	};
}
