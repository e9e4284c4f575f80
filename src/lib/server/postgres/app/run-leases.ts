// Run ownership across instances on PostgreSQL: leases renewed by heartbeat, expired ones taken
// over, and the fence every write of a run passes. The database's clock decides when a lease has
// ended, so instances whose clocks disagree still agree on it.

import type pg from 'pg';
import type { OrphanedRun, RunLeases } from '../../storage/app-storage';
import type { Queryable } from '../checkpoint/store.js';
import type { RunOwner } from './run-storage.js';

/** A write of a run this instance no longer owns: another took it over, or it has ended. */
export class RunFencedError extends Error {
	override name = 'RunFencedError';
	readonly code = 'RUN_FENCED';
	constructor(readonly runId: string) {
		super(`run ${runId} is no longer owned by this instance: another instance took it over, or it ended`);
	}
}

/**
 * In the caller's transaction, before its writes: the run must still be running and owned by this
 * instance. The row stays share-locked until the transaction ends, so a takeover (which updates
 * the row) waits for the write to commit, and every write after a takeover is refused.
 */
export async function holdRun(q: Queryable, runId: string, owner: RunOwner): Promise<void> {
	const { rowCount } = await q.query(`SELECT 1 FROM runs WHERE id = $1 AND owner = $2 AND status = 'running' FOR SHARE`, [
		runId,
		owner.instanceId
	]);
	if (!rowCount) throw new RunFencedError(runId);
}

export function postgresRunLeases(pool: pg.Pool, owner: RunOwner): RunLeases {
	const takeOver = async (alsoOwn: boolean): Promise<OrphanedRun[]> => {
		// Row locks make each expired run one instance's: a second instance's update finds the
		// lease renewed by the first and leaves the row alone.
		const { rows } = await pool.query<{ id: string; conversation_id: string }>(
			`UPDATE runs SET owner = $1, lease_until = now() + $2 * interval '1 millisecond'
			 WHERE status = 'running' AND (lease_until IS NULL OR lease_until < now() OR ($3 AND owner = $1))
			 RETURNING id, conversation_id`,
			[owner.instanceId, owner.leaseMs, alsoOwn]
		);
		return rows.map((r) => ({ id: r.id, conversationId: r.conversation_id }));
	};
	return {
		takeOverExpired: () => takeOver(false),
		takeOverAtStart: () => takeOver(true),
		async renew(runIds) {
			const { rows } = await pool.query<{ id: string }>(
				`UPDATE runs SET lease_until = now() + $2 * interval '1 millisecond'
				 WHERE owner = $1 AND status = 'running' AND id = ANY($3::text[]) RETURNING id`,
				[owner.instanceId, owner.leaseMs, runIds]
			);
			return new Set(rows.map((r) => r.id));
		}
	};
}
