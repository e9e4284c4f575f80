// The lock every claim takes, shared by whatever must see no claim slip past its check.

/**
 * Taken by every claim, and by whatever must see no claim slip past its check (a branch switch),
 * until its transaction ends, so no two instances count at once. Without parameters, so it goes
 * with BEGIN in one round trip (transaction.ts `opening`), and still a statement of its own: what
 * follows sees every claim committed before the lock was had.
 */
export const LOCK_CLAIMS = `SELECT pg_advisory_xact_lock(${0x50_48_c1_a1})`;
