// One transaction on a connection of its own from the pool.

import type pg from 'pg';

/**
 * Runs `work` between BEGIN and COMMIT on one pooled connection; on any error rolls back and
 * rethrows that error. A connection whose ROLLBACK fails too (it broke mid-transaction) is closed
 * instead of going back to the pool. `durable`: the commit waits for its WAL to be flushed to disk
 * even on a server run with synchronous_commit=off, for the writes a power cut must not undo (as
 * sqlite/durable-commit.ts does on SQLite). BEGIN and that setting go in one round trip (a
 * multi-statement query without parameters), as does `opening`: statements without parameters
 * the transaction starts with (a lock), issue 26; `work` is given their results.
 */
export async function inTransaction<T>(
	pool: pg.Pool,
	work: (client: pg.PoolClient, opened: pg.QueryResult[]) => Promise<T>,
	options: { durable?: boolean; opening?: string } = {}
): Promise<T> {
	const client = await pool.connect();
	let broken: Error | undefined;
	try {
		const opening = ['BEGIN', ...(options.durable ? ['SET LOCAL synchronous_commit TO on'] : []), ...(options.opening ? [options.opening] : [])];
		const results: pg.QueryResult | pg.QueryResult[] = await client.query(opening.join('; '));
		const result = await work(client, Array.isArray(results) ? results.slice(1) : []);
		await client.query('COMMIT');
		return result;
	} catch (error) {
		await client.query('ROLLBACK').catch((rollbackError: Error) => {
			broken = rollbackError;
		});
		throw error;
	} finally {
		client.release(broken);
	}
}
