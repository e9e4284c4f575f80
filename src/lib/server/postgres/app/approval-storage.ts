// Approvals (storage/approval-storage.ts ApprovalStorage) on PostgreSQL.

import type pg from 'pg';
import type { ApprovalStorage } from '../../storage/approval-storage';
import type { Queryable } from '../checkpoint/store.js';
import { inTransaction, transactInOneTrip } from '../transaction.js';
import { allowTools } from './allowed-tool-storage.js';
import { isoText } from './iso-text.js';
import { heldRun, RunFencedError } from './run-fence.js';
import { LOCK_CLAIMS } from './claim-lock.js';
import { claimRun, type ClaimRules } from './run-storage.js';
import { toDecision, toPending, type ApprovalRow, type RecordedDecision } from '../../storage/approval-records';
import { named } from '../named-statement.js';

const APPROVAL_COLUMNS = `tool_call_id, tool, args, reason_kind, reason, ${isoText('requested_at')} AS requested_at,
	${isoText('expires_at')} AS expires_at, decision, decided_args, decision_reason`;

/** A call already decided keeps its first decision. */
async function recordDecisions(
	q: Queryable,
	threadId: string,
	decisions: readonly (RecordedDecision & { toolCallId: string })[],
	now: string
): Promise<void> {
	if (decisions.length === 0) return;
	await q.query(
		`UPDATE tool_approvals a SET decision = d.decision, decided_args = d.args, decision_reason = d.reason, decided_at = $2
		 FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS d(tool_call_id, decision, args, reason)
		 WHERE a.thread_id = $1 AND a.tool_call_id = d.tool_call_id AND a.decision IS NULL`,
		[
			threadId,
			now,
			decisions.map((d) => d.toolCallId),
			decisions.map((d) => d.action),
			decisions.map((d) => (d.args ? JSON.stringify(d.args) : null)),
			decisions.map((d) => d.reason ?? null)
		]
	);
}

async function pendingOf(q: Queryable, threadId: string) {
	const { rows } = await q.query<ApprovalRow>(
		named(
			'sophos_pending_approvals',
			`SELECT ${APPROVAL_COLUMNS} FROM tool_approvals WHERE thread_id = $1 AND decision IS NULL
			 ORDER BY tool_approvals.requested_at, tool_approvals.seq`,
			[threadId]
		)
	);
	return rows.map(toPending);
}

const REQUEST_APPROVALS = `WITH held AS (${heldRun('$2', '$11')}),
	written AS (
		INSERT INTO tool_approvals
		(thread_id, tool_call_id, attempt, run_id, tool, args, reason_kind, reason, requested_at, expires_at)
		SELECT $1, r.tool_call_id, r.attempt, $2, r.tool, r.args, r.reason_kind, r.reason, $3, $4
		FROM held, unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[])
		  WITH ORDINALITY AS r(tool_call_id, attempt, tool, args, reason_kind, reason, n)
		ORDER BY r.n
		ON CONFLICT DO NOTHING
	)
	SELECT EXISTS (SELECT 1 FROM held) AS held`;

export function postgresApprovalStorage(pool: pg.Pool, rules: ClaimRules): ApprovalStorage {
	return {
		async request(threadId, runId, requests, now, expiresAt) {
			// DO NOTHING: a step that is run again (a resume, a crash) asks for the same call once.
			// Fenced in the statement (run-fence.ts heldRun); durable, so it keeps its transaction, sent
			// with its BEGIN and COMMIT.
			const values = [
				threadId,
				runId,
				now,
				expiresAt,
				requests.map((r) => r.toolCallId),
				requests.map((r) => r.attempt),
				requests.map((r) => r.tool),
				requests.map((r) => JSON.stringify(r.args)),
				requests.map((r) => r.reason.kind),
				requests.map((r) => r.reason.message),
				rules.owner.instanceId
			];
			const [written] = await transactInOneTrip(pool, [{ text: REQUEST_APPROVALS, values }], { durable: true });
			if (!written!.rows[0]?.held) throw new RunFencedError(runId);
		},

		pending: (threadId) => pendingOf(pool, threadId),

		async decision(threadId, toolCallId, attempt) {
			// Named: read for every tool call a run makes.
			const { rows } = await pool.query<ApprovalRow>(
				named('sophos_approval_decision', `SELECT ${APPROVAL_COLUMNS} FROM tool_approvals WHERE thread_id = $1 AND tool_call_id = $2 AND attempt = $3`, [
					threadId,
					toolCallId,
					attempt
				])
			);
			return rows[0] && toDecision(rows[0]);
		},

		async decideWithRun(conversationId, runId, now, check) {
			return inTransaction(
				pool,
				async (client) => {
					const claim = await claimRun(client, { conversationId, runId, now, trigger: 'approval', input: null }, rules);
					if (claim !== 'claimed') return claim;
					// The claim holds the conversation, so no other decision can be recorded meanwhile.
					const checked = check(await pendingOf(client, conversationId));
					await recordDecisions(client, conversationId, checked, now);
					await allowTools(client, checked.filter((d) => d.remember).map((d) => d.tool), now);
					return claim;
				},
				{ durable: true, opening: [LOCK_CLAIMS] }
			);
		},

		async denyPending(threadId, reason, now) {
			await pool.query(
				`UPDATE tool_approvals SET decision = 'deny', decision_reason = $2, decided_at = $3
				 WHERE thread_id = $1 AND decision IS NULL`,
				[threadId, reason, now]
			);
		},

		async expiredThreads(now) {
			const { rows } = await pool.query<{ thread_id: string }>(
				`SELECT DISTINCT thread_id FROM tool_approvals WHERE decision IS NULL AND expires_at <= $1`,
				[now]
			);
			return rows.map((row) => row.thread_id);
		},

		async nextExpiryAt() {
			const { rows } = await pool.query<{ at: string | null }>(
				named('sophos_next_expiry', `SELECT ${isoText('min(expires_at)')} AS at FROM tool_approvals WHERE decision IS NULL`, [])
			);
			return rows[0]?.at ?? null;
		}
	};
}
