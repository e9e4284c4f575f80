// The run ledger (storage/run-storage.ts RunStorage) on PostgreSQL.

import type pg from 'pg';
import type { RunTrigger } from '../../../protocol';
import type { Claim, RunStorage } from '../../storage/run-storage';
import { inTransaction, transactInOneTrip } from '../transaction.js';
import { named } from '../named-statement.js';
import { startBranchAt } from './branch-storage.js';
import { LOCK_CLAIMS } from './claim-lock.js';
import { isoText } from './iso-text.js';
import { toRecord, type RunRow } from '../../storage/run-records';
import { titleFromMessage, UNTITLED } from '../../storage/conversation-records';

const RUN_COLUMNS = `id, conversation_id, status, trigger, input, error_code, error_message,
	${isoText('started_at')} AS started_at, ${isoText('finished_at')} AS finished_at`;

/** Who claims runs in this process, and for how long a claim holds without a heartbeat. */
export interface RunOwner {
	instanceId: string;
	leaseMs: number;
}

export interface ClaimRules {
	maxConcurrentRuns: number;
	owner: RunOwner;
}

/**
 * In the caller's transaction, which began with LOCK_CLAIMS (claim-lock.ts): inserts a `running` run, owned by this instance under a new lease, unless maxConcurrentRuns runs are running
 * ('full', unless the conversation is busy itself), one holds the conversation ('busy': the
 * partial unique index decides) or there is no such conversation ('missing': so a start need not
 * ask first, a round trip fewer). A run that sends a message (a message, an edit) moves the
 * conversation to the top of the list in the same statement; one that starts a branch makes it
 * the active branch. Shared by the operations that claim.
 */
export async function claimRun(client: pg.PoolClient, run: RunClaim, rules: ClaimRules): Promise<Claim> {
	const { rows } = await client.query<{ claim: Claim }>(named('sophos_claim', CLAIM, claimValues(run, rules)));
	const claim = rows[0]!.claim;
	if (claim === 'claimed' && run.branchFrom !== undefined) await startBranchAt(client, run.conversationId, run.branchFrom);
	return claim;
}

type RunClaim = {
	conversationId: string;
	runId: string;
	now: string;
	trigger: RunTrigger;
	input: string | null;
	branchFrom?: string;
	model?: string;
};

const CLAIM = `WITH found AS (
			SELECT EXISTS (SELECT 1 FROM conversations WHERE id = $2) AS found
		), counted AS (
			SELECT count(*) AS running, coalesce(bool_or(conversation_id = $2), false) AS busy FROM runs WHERE status = 'running'
		), claimed AS (
			INSERT INTO runs (id, conversation_id, status, trigger, input, started_at, owner, lease_until)
			-- The lease from now, not from the transaction's start: a claim may wait long on the claim lock.
			SELECT $1, $2, 'running', $3, $4, $5, $8, clock_timestamp() + $9 * interval '1 millisecond'
			FROM counted, found WHERE found.found AND counted.running < $6
			ON CONFLICT (conversation_id) WHERE status = 'running' DO NOTHING
			RETURNING conversation_id
		), touched AS (
			UPDATE conversations c
			SET updated_at = CASE WHEN $3 IN ('message', 'edit') THEN $5::timestamptz ELSE c.updated_at END,
			    model = coalesce($7, c.model),
			    -- A thread made with no run (POST /threads) takes its title from its first message.
			    title = CASE WHEN $10::text IS NOT NULL AND c.message_count = 0 AND c.title = '${UNTITLED}' THEN $10 ELSE c.title END
			FROM claimed WHERE c.id = claimed.conversation_id
		)
		SELECT CASE WHEN NOT found.found THEN 'missing'
		            WHEN EXISTS (SELECT 1 FROM claimed) THEN 'claimed'
		            WHEN counted.running >= $6 AND NOT counted.busy THEN 'full'
		            ELSE 'busy' END AS claim
		FROM counted, found`;

const claimValues = (run: RunClaim, rules: ClaimRules) => [
	run.runId,
	run.conversationId,
	run.trigger,
	run.input,
	run.now,
	rules.maxConcurrentRuns,
	run.model ?? null,
	rules.owner.instanceId,
	rules.owner.leaseMs,
	run.trigger === 'message' && run.input ? titleFromMessage(run.input) : null
];

export function postgresRunStorage(pool: pg.Pool, rules: ClaimRules): RunStorage {
	const me = rules.owner.instanceId;
	return {
		async claim(conversationId, runId, now, trigger, input, also) {
			const run = { conversationId, runId, now, trigger, input, ...also };
			if (run.branchFrom !== undefined) return inTransaction(pool, (client) => claimRun(client, run, rules), { opening: [LOCK_CLAIMS] });
			// Without a branch to start, the lock and the claim go with BEGIN and COMMIT in one round trip (issue 26).
			const [, claimed] = await transactInOneTrip(pool, [LOCK_CLAIMS, named('sophos_claim', CLAIM, claimValues(run, rules))]);
			return (claimed!.rows[0] as { claim: Claim }).claim;
		},

		async touchConversation(conversationId, now) {
			await pool.query(`UPDATE conversations SET updated_at = $1 WHERE id = $2`, [now, conversationId]);
		},

		async releaseClaim(runId) {
			await pool.query(`DELETE FROM runs WHERE id = $1 AND status = 'running' AND owner = $2`, [runId, me]);
		},

		async finish(runId, outcome, now) {
			const { rows } = await pool.query<{ finished: boolean }>(
				named(
					'sophos_run_finish',
					`WITH finished AS (
					UPDATE runs SET status = $2, error_code = $3, error_message = $4, finished_at = $5
					WHERE id = $1 AND status = 'running' AND owner = $7
					RETURNING conversation_id
				), touched AS (
					UPDATE conversations c SET updated_at = $5, message_count = $6 FROM finished WHERE c.id = finished.conversation_id
				)
				SELECT EXISTS (SELECT 1 FROM finished) AS finished`,
					[runId, outcome.status, outcome.error?.code ?? null, outcome.error?.message ?? null, now, outcome.messageCount, me]
				)
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

		async opening(conversationId) {
			const { rows } = await pool.query<{ model: string | null; head: string | null; awaiting: boolean; latest: { id: string; trigger: RunTrigger }[] }>(
				named(
					'sophos_run_opening',
					`SELECT c.model,
					(SELECT head FROM conversation_branches WHERE conversation_id = c.id) AS head,
					EXISTS (SELECT 1 FROM tool_approvals WHERE thread_id = c.id AND decision IS NULL) AS awaiting,
					(SELECT coalesce(json_agg(json_build_object('id', r.id, 'trigger', r.trigger) ORDER BY r.started_at DESC, r.seq DESC), '[]') FROM (
						SELECT id, trigger, started_at, seq FROM runs WHERE conversation_id = c.id ORDER BY started_at DESC, seq DESC LIMIT 2
					) r) AS latest
				FROM conversations c WHERE c.id = $1`,
					[conversationId]
				)
			);
			const row = rows[0];
			return { model: row?.model ?? null, head: row?.head ?? undefined, awaitingDecision: row?.awaiting ?? false, latestRuns: row?.latest ?? [] };
		},

		async listRunning() {
			const { rows } = await pool.query<{ id: string; conversation_id: string }>(
				`SELECT id, conversation_id FROM runs WHERE status = 'running' ORDER BY seq`
			);
			return rows.map((row) => ({ id: row.id, conversationId: row.conversation_id }));
		},

		async countWaiting() {
			const { rows } = await pool.query<{ n: string }>(
				`SELECT count(*) AS n FROM runs r WHERE r.status = 'waiting' AND NOT EXISTS (
					SELECT 1 FROM runs l WHERE l.conversation_id = r.conversation_id AND (l.started_at, l.seq) > (r.started_at, r.seq)
				)`
			);
			return Number(rows[0]!.n);
		}
	};
}
