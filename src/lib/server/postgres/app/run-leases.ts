// Run ownership across instances on PostgreSQL: leases renewed by heartbeat, expired ones taken
// over, and the fence every write of a run passes. The database's clock decides when a lease has
// ended, so instances whose clocks disagree still agree on it.

import type pg from 'pg';
import type { OrphanedRun, RunLeases } from '../../storage/app-storage';
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
 * The fence, as SQL for the statement that writes (issue 26: a check of its own cost a round trip
 * and a transaction per write): a row while the run is still running and owned by `owner`, both
 * parameter placeholders such as `$3`. Selecting it share-locks the run's row until the
 * transaction ends, so a takeover (which updates the row) waits for the write to commit, and a
 * write after a takeover finds no row: the statement writes nothing and says so, and its caller
 * throws RunFencedError.
 */
export const heldRun = (run: string, owner: string) =>
	`SELECT 1 FROM runs WHERE id = ${run} AND owner = ${owner} AND status = 'running' FOR SHARE`;

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
