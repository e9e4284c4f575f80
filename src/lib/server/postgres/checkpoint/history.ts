// The checkpoint history contract (storage/checkpoint-history.ts) on DeltaPostgresSaver's tables
// (migrations.ts): a thread's lineage read without decoding checkpoints, and retention deciding as
// the SQLite store does (checkpoint/retention-plan.ts).

import type pg from 'pg';
import { encode, type Encoding } from '../../checkpoint/blob.js';
import { logReach, planPrune, type PrunePlan } from '../../checkpoint/retention-plan.js';
import { channelMapOf } from '../../checkpoint/row-encoding.js';
import { LINK, linkTarget } from '../../checkpoint/link-encoding.js';
import type { CheckpointHistory, LineageEntry, PruneResult } from '../../storage/checkpoint-history.js';
import { inTransaction } from '../transaction.js';

const ROOT_NAMESPACE = `FROM lg_checkpoints c JOIN lg_threads t USING (thread_key) WHERE t.thread_id = $1 AND t.checkpoint_ns = ''`;

/**
 * Needs the tables of migratePostgres(pool). A prune takes the row lock of each of the thread's
 * namespaces that puts take (put-statements.ts), so a put to the thread, from any process, waits
 * for the prune to commit and then builds on what it left, or the prune waits for the put and
 * keeps its checkpoint.
 */
export function postgresCheckpointHistory(pool: pg.Pool): CheckpointHistory {
	return {
		async latestId(threadId) {
			const { rows } = await pool.query<{ checkpoint_id: string }>(
				`SELECT c.checkpoint_id ${ROOT_NAMESPACE} ORDER BY c.checkpoint_id DESC LIMIT 1`,
				[threadId]
			);
			return rows[0]?.checkpoint_id;
		},

		async lineage(threadId) {
			const { rows } = await pool.query<LineageEntry>(
				`SELECT c.checkpoint_id AS id, c.parent_checkpoint_id AS parent ${ROOT_NAMESPACE} ORDER BY c.checkpoint_id`,
				[threadId]
			);
			return rows;
		},

		async prune(threadId, keepLast, heads) {
			if (!Number.isSafeInteger(keepLast) || keepLast < 1) throw new RangeError(`keepLast must be >= 1, got ${keepLast}`);
			return inTransaction(pool, async (client) => {
				const result: PruneResult = { deletedCheckpoints: 0, deletedWrites: 0, deletedItems: 0 };
				// In key order, so two prunes of one thread cannot deadlock; a put locks one namespace only.
				const { rows } = await client.query<{ thread_key: number }>(
					`SELECT thread_key FROM lg_threads WHERE thread_id = $1 ORDER BY thread_key FOR NO KEY UPDATE`,
					[threadId]
				);
				const threadKeys = rows.map((row) => row.thread_key);
				for (const threadKey of threadKeys) await pruneNamespace(client, threadKey, keepLast, heads, result);
				if (result.deletedCheckpoints > 0) result.deletedItems = await collectLogs(client, threadKeys);
				return result;
			});
		}
	};
}

type Candidate = { checkpoint_id: string; parent_checkpoint_id: string | null; channels: Buffer; encoding: number };

async function pruneNamespace(
	client: pg.PoolClient,
	threadKey: number,
	keepLast: number,
	heads: readonly string[],
	result: PruneResult
): Promise<void> {
	// A statement of its own after the lock, so it reads the last put that held it.
	const { rows } = await client.query<Candidate>(
		`SELECT checkpoint_id, parent_checkpoint_id, channels, encoding FROM lg_checkpoints
		 WHERE thread_key = $1 ORDER BY checkpoint_id DESC`,
		[threadKey]
	);
	const candidates = rows.map((row) => ({ id: row.checkpoint_id, parent: row.parent_checkpoint_id, map: channelMapOf(row) }));
	const plan = planPrune(candidates, keepLast, heads);
	if (plan === undefined) return;
	await applyChanges(client, threadKey, plan, new Map(rows.map((row) => [row.checkpoint_id, row.encoding as Encoding])));
	// With the dropped checkpoints go their writes, and the writes of older ids that are stored
	// only by their writes (a put that never came, or a parent pruned before).
	const deleted = await client.query<{ checkpoints: number; writes: number }>(
		`WITH gone AS (
			DELETE FROM lg_checkpoints WHERE thread_key = $1 AND checkpoint_id = ANY($2::text[]) RETURNING 1
		),
		writes AS (
			DELETE FROM lg_writes w WHERE w.thread_key = $1 AND (w.checkpoint_id = ANY($2::text[]) OR (w.checkpoint_id < $3
			  AND NOT EXISTS (SELECT 1 FROM lg_checkpoints c WHERE c.thread_key = $1 AND c.checkpoint_id = w.checkpoint_id)))
			RETURNING 1
		)
		SELECT (SELECT count(*) FROM gone)::int AS checkpoints, (SELECT count(*) FROM writes)::int AS writes`,
		[threadKey, plan.dropped, plan.oldestKept]
	);
	result.deletedCheckpoints += deleted.rows[0]!.checkpoints;
	result.deletedWrites += deleted.rows[0]!.writes;
}

/** Kept rows take their new channel maps (in the row's encoding, as the skeleton is) and lose dropped parents. */
async function applyChanges(client: pg.PoolClient, threadKey: number, plan: PrunePlan, encodings: Map<string, Encoding>) {
	if (plan.changes.length === 0) return;
	const maps = plan.changes.map((change) =>
		change.map === undefined ? null : Buffer.from(encode(Buffer.from(JSON.stringify(change.map)), encodings.get(change.id)!))
	);
	await client.query(
		`UPDATE lg_checkpoints c SET channels = coalesce(u.channels, c.channels),
		   parent_checkpoint_id = CASE WHEN u.detach THEN NULL ELSE c.parent_checkpoint_id END
		 FROM unnest($2::text[], $3::bytea[], $4::bool[]) AS u(checkpoint_id, channels, detach)
		 WHERE c.thread_key = $1 AND c.checkpoint_id = u.checkpoint_id`,
		[threadKey, plan.changes.map((change) => change.id), maps, plan.changes.map((change) => change.detach)]
	);
}

/**
 * Deletes the items of the thread's logs that no remaining checkpoint or pending-write link
 * reaches, and the logs reached by none. Recorded lengths stay, so a position is never written
 * twice and every process's item cache stays valid.
 */
async function collectLogs(client: pg.PoolClient, threadKeys: readonly number[]): Promise<number> {
	// One round trip: the channel maps, the links among the pending writes, and the logs.
	const { rows } = await client.query<{ kind: 'map' | 'link' | 'log'; value: Buffer; encoding: number; log_id: number }>(
		`SELECT 'map' AS kind, channels AS value, encoding, NULL::int AS log_id FROM lg_checkpoints WHERE thread_key = ANY($1::int[])
		 UNION ALL SELECT 'link', value, encoding, NULL FROM lg_writes WHERE thread_key = ANY($1::int[]) AND encoding IN ($2, $3)
		 UNION ALL SELECT 'log', NULL, NULL, log_id FROM lg_logs WHERE thread_key = ANY($1::int[])`,
		[threadKeys, LINK.ITEM, LINK.ITEMS]
	);
	const of = (kind: string) => rows.filter((row) => row.kind === kind);
	const reach = logReach(
		of('map').map((row) => channelMapOf({ channels: row.value, encoding: row.encoding })),
		of('link').map(linkTarget)
	);
	const logIds = of('log').map((row) => row.log_id);
	const items = await client.query(
		`DELETE FROM lg_log_items i USING unnest($1::int[], $2::int[]) AS r(log_id, reach)
		 WHERE i.log_id = r.log_id AND i.seq >= r.reach`,
		[logIds, logIds.map((logId) => reach.get(logId) ?? 0)]
	);
	await client.query(`DELETE FROM lg_logs WHERE log_id = ANY($1::int[])`, [logIds.filter((logId) => !reach.has(logId))]);
	return items.rowCount ?? 0;
}
