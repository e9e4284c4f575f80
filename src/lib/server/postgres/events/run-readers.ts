// on_disconnect "cancel" across instances: the readers a run has on instances that do not execute
// it, kept where its owner counts them, and a leaving reader's wish that the run be cancelled
// carried to the owner, which decides once it has heard it.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { NotifyBus } from '../notify-bus';

type Parts = { pool: pg.Pool; bus: NotifyBus; log: (message: string) => void };

/** A reader counted on the owner's side: left once, asking for the cancel or not. */
export type CountedReader = { leave(cancel: boolean): void };

/**
 * This process's readers of runs other instances execute, one run_readers row each. A row holds
 * until `until`, which the process renews while it has readers: the rows of a process that died
 * stop counting once their time has passed, so a dead reader never holds a run uncancellable for
 * longer than that, and until then it counts as a reader (the run goes on, as with `continue`).
 * Rows are named by a random id per process, never by SOPHOS_INSTANCE_ID, so an instance restarted
 * under the same name does not renew the rows its predecessor left.
 */
export class RemoteReaders {
	private readonly instance = randomUUID();
	private readonly held = new Set<string>();
	private readonly timer: NodeJS.Timeout;

	constructor(
		private readonly parts: Parts,
		private readonly ttlMs: number
	) {
		this.timer = setInterval(() => this.renew(), Math.max(1, Math.floor(ttlMs / 4)));
		this.timer.unref();
	}

	/**
	 * Counts a reader of `runId` before it reads anything, so an owner never finds it missing while
	 * it follows. `leave` removes the row; with `cancel`, in the same commit, it asks the owner to
	 * cancel the run if no reader is left anywhere (the owner decides when it hears it, so the
	 * removal is always seen first). A removal that fails leaves a row that times out.
	 */
	async join(runId: string): Promise<CountedReader> {
		const id = randomUUID();
		this.held.add(id);
		try {
			await this.parts.pool.query(
				`INSERT INTO run_readers (id, run_id, instance_id, until)
				 SELECT $1, id, $3, now() + $4 * interval '1 millisecond' FROM runs WHERE id = $2`,
				[id, runId, this.instance, this.ttlMs]
			);
		} catch (error) {
			this.held.delete(id);
			throw error;
		}
		let left = false;
		return {
			leave: (cancel) => {
				if (left) return;
				left = true;
				this.held.delete(id);
				this.parts.pool
					.query(
						`WITH gone AS (DELETE FROM run_readers WHERE id = $1),
						 asked AS (INSERT INTO run_unfollowed (id, run_id) SELECT $1, id FROM runs WHERE $3 AND id = $2 AND status = 'running' RETURNING run_id)
						 SELECT pg_notify('sophos_run_unfollowed', run_id) FROM asked`,
						[id, runId, cancel]
					)
					.catch((error: Error) => this.parts.log(`Run ${runId}: recording that a reader left failed (${error.message})`));
			}
		};
	}

	private renew(): void {
		if (this.held.size === 0) return;
		this.parts.pool
			.query(`UPDATE run_readers SET until = now() + $2 * interval '1 millisecond' WHERE instance_id = $1`, [this.instance, this.ttlMs])
			.catch((error: Error) => this.parts.log(`Renewing this instance's readers of other instances' runs failed (${error.message})`));
	}

	close(): void {
		clearInterval(this.timer);
	}
}

/**
 * The owner's side: while a run executes on this instance, each time a reader on another instance
 * has left asking for the cancel (a row, so a wish sent while the bus was away is read when it is
 * back), takes the wishes and calls `unfollowed` with whether any reader on another instance still
 * counts. A wish is a row per leaving reader, committed with the removal of its reader's row, so a
 * read that takes it sees that reader gone; taking deletes it, so of two reads only one has it.
 * Nothing is read as the watch begins, which spares every run a round trip: a wish needs a reader
 * that followed the run and left between its claim and this watch, a few milliseconds in this
 * process, and one missed there leaves the run going on, as with `continue`. Returns the unwatch,
 * for the run's `finally`.
 */
export function watchForUnfollowed(parts: Parts, runId: string, unfollowed: (othersLeft: boolean) => void): () => void {
	let done = false;
	const check = () => {
		parts.pool
			.query<{ asked: boolean; others: boolean }>(
				`WITH taken AS (DELETE FROM run_unfollowed WHERE run_id = $1 RETURNING id)
				 SELECT EXISTS (SELECT 1 FROM taken) AS asked,
				        EXISTS (SELECT 1 FROM run_readers WHERE run_id = $1 AND until > now()) AS others`,
				[runId]
			)
			.then(({ rows }) => {
				if (!done && rows[0]?.asked) unfollowed(rows[0].others);
			})
			.catch((error: Error) => parts.log(`Run ${runId}: reading whether its readers on other instances left failed (${error.message})`));
	};
	const unsubscribe = parts.bus.subscribe('sophos_run_unfollowed', runId, { notified: check, reconnected: check });
	return () => {
		done = true;
		unsubscribe();
	};
}

/**
 * Whether a reader on another instance counts for `runId` now: what the owner reads when its own
 * last reader leaves, before it cancels.
 */
export async function hasRemoteReaders(pool: pg.Pool, runId: string): Promise<boolean> {
	const { rowCount } = await pool.query('SELECT 1 FROM run_readers WHERE run_id = $1 AND until > now() LIMIT 1', [runId]);
	return rowCount !== 0;
}
