// Run ownership across instances on PostgreSQL: leases renewed by heartbeat and expired ones taken
// over (the fence every write of a run passes is run-fence.ts). The database's clock decides when a lease has
// ended, so instances whose clocks disagree still agree on it.

import type pg from 'pg';
import type { OrphanedRun, RunLeases } from '../../storage/run-leases';
import type { RunOwner } from './run-storage.js';

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
