// One transaction on a connection of its own from the pool.

import type pg from 'pg';

/** A statement sent on its own: literal SQL, or a query with parameters (named: prepared once per connection). */
export type Statement = string | pg.QueryConfig;

/**
 * Sends `statements` on `client` and answers their results in order. On a connection that
 * pipelines (the instance's pool, engine.ts) they go out together, one round trip however many;
 * on another, one after another. Every result is awaited, so a failure of one is never left unread.
 */
export async function sendTogether(client: pg.ClientBase, statements: readonly Statement[]): Promise<pg.QueryResult[]> {
	if ((client as pg.Client).pipeline) {
		// pg writes each query to the socket as it is sent, a system call each; with the socket
		// corked, the flight leaves in one write (issue 26: the writes were a PostgreSQL turn's
		// largest share of CPU beside LangGraph's own).
		const socket = (client as pg.Client).connection.stream;
		socket.cork();
		try {
			return Promise.all(statements.map((s) => client.query(s)));
		} finally {
			socket.uncork();
		}
	}
	const results: pg.QueryResult[] = [];
	for (const statement of statements) results.push(await client.query(statement));
	return results;
}

/**
 * Runs `work` between BEGIN and COMMIT on one pooled connection; on any error rolls back and
 * rethrows that error. A connection whose ROLLBACK fails too (it broke mid-transaction) is closed
 * instead of going back to the pool. `durable`: the commit waits for its WAL to be flushed to disk
 * even on a server run with synchronous_commit=off, for the writes a power cut must not undo (as
 * sqlite/durable-commit.ts does on SQLite). BEGIN, that setting and `opening` (statements the
 * transaction starts with, such as a lock) are sent together (sendTogether: one round trip on the
 * pool, issue 26); `work` is given the results of `opening`. `commitsItself`: `work` ends the
 * transaction itself, sending COMMIT with its last statement (`andCommit`).
 */
export async function inTransaction<T>(
	pool: pg.Pool,
	work: (client: pg.PoolClient, opened: pg.QueryResult[]) => Promise<T>,
	options: { durable?: boolean; opening?: readonly Statement[]; commitsItself?: boolean } = {}
): Promise<T> {
	return rolledBackOnError(pool, async (client) => {
		const begin = beginning(options.durable);
		const results = await sendTogether(client, [...begin, ...(options.opening ?? [])]);
		const result = await work(client, results.slice(begin.length));
		if (!options.commitsItself) await client.query('COMMIT');
		return result;
	});
}

/** `statement` and the COMMIT that ends its transaction, sent together; its result. */
export async function andCommit(client: pg.ClientBase, statement: Statement): Promise<pg.QueryResult> {
	const [result] = await sendTogether(client, [statement, 'COMMIT']);
	return result!;
}

/**
 * BEGIN, `statements` and COMMIT sent together (sendTogether: one round trip on the pool, issue 26).
 * Each statement takes its own snapshot, so one after a lock sees every commit made before the
 * lock was had. After an error the server refuses the rest and the COMMIT rolls back; the
 * transaction is rolled back as inTransaction's is. `durable` as inTransaction's. Returns the
 * results of `statements`.
 */
export async function transactInOneTrip(pool: pg.Pool, statements: readonly Statement[], options: { durable?: boolean } = {}): Promise<pg.QueryResult[]> {
	const begin = beginning(options.durable);
	return rolledBackOnError(pool, async (client) =>
		(await sendTogether(client, [...begin, ...statements, 'COMMIT'])).slice(begin.length, begin.length + statements.length)
	);
}

/** What a transaction begins with: BEGIN, and for a durable one the setting that makes its commit wait for the disk. */
const beginning = (durable: boolean | undefined): Statement[] => ['BEGIN', ...(durable ? ['SET LOCAL synchronous_commit TO on'] : [])];

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
