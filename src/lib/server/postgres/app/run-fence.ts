// The fence every write of a run passes on PostgreSQL; the leases it checks are run-leases.ts's.

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
 * and a transaction per write): a row while the run is still running and owned by `owner` (`run`
 * and `owner` are parameter placeholders such as `$3`). Selecting it share-locks the run's row until the
 * transaction ends, so a takeover (which updates the row) waits for the write to commit, and a
 * write after a takeover finds no row: the statement writes nothing and says so, and its caller
 * throws RunFencedError.
 */
export const heldRun = (run: string, owner: string) =>
	`SELECT 1 FROM runs WHERE id = ${run} AND owner = ${owner} AND status = 'running' FOR SHARE`;
