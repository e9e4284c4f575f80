// The tool call journal (storage/app-storage.ts JournalStorage) on PostgreSQL.

import type pg from 'pg';
import type { JournalStorage } from '../../storage/app-storage';
import { inTransaction } from '../transaction.js';
import { holdRun } from './run-leases.js';
import type { RunOwner } from './run-storage.js';
import { toEntry, type JournalRow } from '../../storage/journal-records';

const JOURNAL_COLUMNS = 'thread_id, tool_call_id, run_id, step, tool, args_hash, call_hash, idempotency_key, message_id, attempts, outcome, result';

// A call with an outcome keeps its row as it is; one without counts another attempt.
const RECORD_INTENT = `
	INSERT INTO tool_calls (thread_id, tool_call_id, run_id, step, tool, args_hash, idempotency_key, message_id, intent_at, call_hash)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
	ON CONFLICT (thread_id, tool_call_id) DO UPDATE SET
		run_id = EXCLUDED.run_id, attempts = tool_calls.attempts + 1, intent_at = EXCLUDED.intent_at
	WHERE tool_calls.outcome IS NULL`;

/** Writes are fenced (run-leases.ts holdRun): only the owner of the run making the call records it. */
export function postgresJournalStorage(pool: pg.Pool, owner: RunOwner): JournalStorage {
	return {
		async get(threadId, toolCallId) {
			const { rows } = await pool.query<JournalRow>(`SELECT ${JOURNAL_COLUMNS} FROM tool_calls WHERE thread_id = $1 AND tool_call_id = $2`, [
				threadId,
				toolCallId
			]);
			return rows[0] && toEntry(rows[0]);
		},

		async succeededWith(threadId, tool, argsHash) {
			const { rows } = await pool.query<JournalRow>(
				`SELECT ${JOURNAL_COLUMNS} FROM tool_calls WHERE thread_id = $1 AND tool = $2 AND args_hash = $3 AND outcome = 'success'
				 ORDER BY intent_at, tool_call_id`,
				[threadId, tool, argsHash]
			);
			return rows.map(toEntry);
		},

		async recordIntent(entry, now, durable) {
			const args = [
				entry.threadId,
				entry.toolCallId,
				entry.runId,
				entry.step,
				entry.tool,
				entry.argsHash,
				entry.idempotencyKey,
				entry.messageId,
				now,
				entry.callHash
			];
			await inTransaction(
				pool,
				async (client) => {
					await holdRun(client, entry.runId, owner);
					await client.query(RECORD_INTENT, args);
				},
				{ durable }
			);
		},

		async recordOutcome(threadId, toolCallId, runId, outcome, now) {
			await inTransaction(pool, async (client) => {
				await holdRun(client, runId, owner);
				await client.query(
					`UPDATE tool_calls SET outcome = $1, result = $2, outcome_at = $3
					 WHERE thread_id = $4 AND tool_call_id = $5 AND outcome IS NULL`,
					[outcome.outcome, outcome.result, now, threadId, toolCallId]
				);
			});
		}
	};
}
