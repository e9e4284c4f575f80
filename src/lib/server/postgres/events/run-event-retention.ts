// How long a run's kept events outlive it: swept at start and periodically, by any instance.

import type pg from 'pg';

/**
 * Deletes the kept events (and cancel requests) of every run that finished more than `keepMs`
 * ago by its runs row, whichever instance ran it; a run still `running` keeps its events, even
 * one whose owner died, until it is taken over and ends. Returns how many rows went.
 */
export async function sweepRunEvents(db: pg.Pool | pg.PoolClient, keepMs: number): Promise<number> {
	const old = `SELECT id FROM runs WHERE finished_at < now() - $1 * interval '1 millisecond'`;
	const events = await db.query(`DELETE FROM run_events WHERE run_id IN (${old})`, [keepMs]);
	await db.query(`DELETE FROM run_cancels WHERE run_id IN (${old})`, [keepMs]);
	return events.rowCount ?? 0;
}

export interface RunEventSweeperOptions {
	/**
	 * RUN_EVENTS_KEEP_MS (default 5 minutes): how long after its end a run's events stay. A reader
	 * that comes back later than this (with Last-Event-ID) gets the durable outcome alone, as from a
	 * run that is no longer live on one instance; one that follows a takeover needs them for as long
	 * as it takes to read the dead run's end and go on with the run that resumed it.
	 */
	keepMs: number;
	/** Between two sweeps (default a minute); each instance sweeps, and a sweep is one DELETE. */
	everyMs?: number;
	log: (message: string) => void;
}

/** Sweeps once at start (before the instance serves), then every `everyMs` until closed. */
export class RunEventSweeper {
	private timer: NodeJS.Timeout | undefined;
	private started = false;
	private sweeping: Promise<void> = Promise.resolve();

	constructor(
		private readonly pool: pg.Pool,
		private readonly options: RunEventSweeperOptions
	) {}

	/** The first sweep; rejects if it fails. Once only. */
	async start(): Promise<void> {
		if (this.started) throw new Error('the run event sweeper has already been started');
		this.started = true;
		await sweepRunEvents(this.pool, this.options.keepMs);
		this.timer = setInterval(() => {
			this.sweeping = sweepRunEvents(this.pool, this.options.keepMs).then(
				() => {},
				(error: Error) => this.options.log(`Run events: sweeping old runs' events failed (${error.message}); trying again later`)
			);
		}, this.options.everyMs ?? 60_000);
		this.timer.unref();
	}

	/** Stops sweeping, once any sweep under way has ended. */
	async close(): Promise<void> {
		clearInterval(this.timer);
		await this.sweeping;
	}
}
