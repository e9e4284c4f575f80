// The tool call journal (storage/journal-storage.ts JournalStorage) on PostgreSQL.

import type pg from 'pg';
import type { JournalStorage } from '../../storage/journal-storage';
import { transactInOneTrip } from '../transaction.js';
import { heldRun, RunFencedError } from './run-fence.js';
import type { RunOwner } from './run-storage.js';
import { toEntry, type JournalRow } from '../../storage/journal-records';
import { named } from '../named-statement.js';

const JOURNAL_COLUMNS = 'thread_id, tool_call_id, run_id, step, tool, args_hash, call_hash, idempotency_key, message_id, attempts, outcome, result';

// A call with an outcome keeps its row as it is; one without counts another attempt. Fenced in the
// statement: nothing is written unless the run is held.
const RECORD_INTENT = `
	WITH held AS (${heldRun('$3', '$11')}),
	written AS (
		INSERT INTO tool_calls (thread_id, tool_call_id, run_id, step, tool, args_hash, idempotency_key, message_id, intent_at, call_hash)
		SELECT $1, $2, $3, $4::int, $5, $6, $7, $8, $9::timestamptz, $10 FROM held
		ON CONFLICT (thread_id, tool_call_id) DO UPDATE SET
			run_id = EXCLUDED.run_id, attempts = tool_calls.attempts + 1, intent_at = EXCLUDED.intent_at
		WHERE tool_calls.outcome IS NULL
	)
	SELECT EXISTS (SELECT 1 FROM held) AS held`;

const RECORD_OUTCOME = `
	WITH held AS (${heldRun('$6', '$7')}),
	written AS (
		UPDATE tool_calls SET outcome = $1, result = $2, outcome_at = $3
		WHERE thread_id = $4 AND tool_call_id = $5 AND outcome IS NULL AND EXISTS (SELECT 1 FROM held)
	)
	SELECT EXISTS (SELECT 1 FROM held) AS held`;

/** Throws RunFencedError unless the fenced statement's `held` column says the run was held. */
function expectHeld(rows: { held: boolean }[], runId: string): void {
	if (!rows[0]?.held) throw new RunFencedError(runId);
}

/**
 * Writes are fenced (run-fence.ts heldRun): only the owner of the run making the call records it,
 * checked in the writing statement. A durable intent is the one write that needs a transaction (its
 * commit waits for the disk), sent with its BEGIN and COMMIT; each is one round trip.
 */
export function postgresJournalStorage(pool: pg.Pool, owner: RunOwner): JournalStorage {
	return {
		async get(threadId, toolCallId) {
			const { rows } = await pool.query<JournalRow>(
				named('sophos_journal_entry', `SELECT ${JOURNAL_COLUMNS} FROM tool_calls WHERE thread_id = $1 AND tool_call_id = $2`, [threadId, toolCallId])
			);
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
				entry.callHash,
				owner.instanceId
			];
			const intent = named('sophos_journal_intent', RECORD_INTENT, args);
			const [written] = durable ? await transactInOneTrip(pool, [intent], { durable }) : [await pool.query(intent)];
			expectHeld(written!.rows, entry.runId);
		},

		async recordOutcome(threadId, toolCallId, runId, outcome, now) {
			const { rows } = await pool.query<{ held: boolean }>(
				named('sophos_journal_outcome', RECORD_OUTCOME, [
				outcome.outcome,
				outcome.result,
				now,
				threadId,
				toolCallId,
				runId,
				owner.instanceId
			])
			);
			expectHeld(rows, runId);
		}
	};
}
