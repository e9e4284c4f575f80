// One transaction on a connection of its own from the pool.

import type pg from 'pg';

/**
 * Runs `work` between BEGIN and COMMIT on one pooled connection; on any error rolls back and
 * rethrows that error. A connection whose ROLLBACK fails too (it broke mid-transaction) is closed
 * instead of going back to the pool. `durable`: the commit waits for its WAL to be flushed to disk
 * even on a server run with synchronous_commit=off, for the writes a power cut must not undo (as
 * sqlite/durable-commit.ts does on SQLite). BEGIN and that setting go in one round trip (a
 * multi-statement query without parameters), as does `opening`: statements without parameters
 * the transaction starts with (a lock), issue 26; `work` is given their results. `commitsItself`:
 * `work`'s last query ends with COMMIT, in the round trip of the statement before it.
 */
export async function inTransaction<T>(
	pool: pg.Pool,
	work: (client: pg.PoolClient, opened: pg.QueryResult[]) => Promise<T>,
	options: { durable?: boolean; opening?: string; commitsItself?: boolean } = {}
): Promise<T> {
	return rolledBackOnError(pool, async (client) => {
		const opening = ['BEGIN', ...(options.durable ? ['SET LOCAL synchronous_commit TO on'] : []), ...(options.opening ? [options.opening] : [])];
		const results: pg.QueryResult | pg.QueryResult[] = await client.query(opening.join('; '));
		const result = await work(client, Array.isArray(results) ? results.slice(1) : []);
		if (!options.commitsItself) await client.query('COMMIT');
		return result;
	});
}

/** What a statement that ends its transaction is sent with, in the same round trip (`commitsItself`). */
export const AND_COMMIT = ';\nCOMMIT';

/**
 * BEGIN, `statements` and COMMIT in one round trip (issue 26): a multi-statement query, so the
 * statements take no parameters (literal-sql.ts writes their values in). Each statement still
 * takes its own snapshot, so one after a lock sees every commit made before the lock was had. On
 * an error the server skips the rest, and the transaction is rolled back as inTransaction's is.
 * Returns the results of `statements`.
 */
export async function transactInOneTrip(pool: pg.Pool, statements: readonly string[]): Promise<pg.QueryResult[]> {
	return rolledBackOnError(pool, async (client) => {
		const results = (await client.query(['BEGIN', ...statements, 'COMMIT'].join(';\n'))) as unknown as pg.QueryResult[];
		return results.slice(1, 1 + statements.length);
	});
}

/**
 * `work` on one pooled connection; on any error a ROLLBACK, then that error. A connection whose
 * ROLLBACK fails too (it broke mid-transaction) is closed instead of going back to the pool.
 */
async function rolledBackOnError<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
	const client = await pool.connect();
	let broken: Error | undefined;
	try {
		return await work(client);
	} catch (error) {
		await client.query('ROLLBACK').catch((rollbackError: Error) => {
			broken = rollbackError;
		});
		throw error;
	} finally {
		client.release(broken);
	}
}
