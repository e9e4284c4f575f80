// The lock every claim takes, shared by whatever must see no claim slip past its check.

import type pg from 'pg';

/**
 * Taken by every claim, and by whatever must see no claim slip past its check (a branch switch),
 * until its transaction ends, so no two instances count at once.
 */
export async function lockClaims(client: pg.PoolClient): Promise<void> {
	// A statement of its own: what follows sees every claim committed before the lock was had.
	await client.query('SELECT pg_advisory_xact_lock($1)', [0x50_48_c1_a1]);
}
