// How long a run's kept events outlive it: swept at start and periodically, by any instance.

import type pg from 'pg';
import type { RunStatus } from '../../../protocol';
import { appendRunEvents, encodeEvent } from './run-event-rows.js';

/**
 * Deletes the kept events (and cancel requests, answers a sender left behind, and the rows of
 * readers and their wishes a dead instance left, run-readers.ts) of every run that finished more than `keepMs`
 * ago by its runs row, whichever instance ran it; a run still `running` keeps its events, even
 * one whose owner died, until it is taken over and ends. Returns how many rows went.
 */
export async function sweepRunEvents(db: pg.Pool | pg.PoolClient, keepMs: number): Promise<number> {
	const old = `SELECT id FROM runs WHERE finished_at < now() - $1 * interval '1 millisecond'`;
	const events = await db.query(`DELETE FROM run_events WHERE run_id IN (${old})`, [keepMs]);
	for (const table of ['run_cancels', 'elicitation_answers', 'run_readers', 'run_unfollowed']) {
		await db.query(`DELETE FROM ${table} WHERE run_id IN (${old})`, [keepMs]);
	}
	return events.rowCount ?? 0;
}

/**
 * Ends the kept stream of each run whose runs row ended more than `graceMs` ago without its
 * terminal event kept: its owner recorded the outcome and died before keeping the event (one round
 * trip), so its remote readers would wait for ever. They get the `end` the route answers for a run
 * that is not live (the status alone; the page reads the rest from the conversation). Only runs
 * with kept events are looked at. Returns how many streams it ended.
 */
export async function endOrphanedStreams(db: pg.Pool | pg.PoolClient, graceMs: number): Promise<number> {
	const { rows } = await db.query<{ id: string; conversation_id: string; status: Exclude<RunStatus, 'running'> }>(
		`SELECT r.id, r.conversation_id, r.status FROM runs r
		 WHERE r.id IN (SELECT DISTINCT run_id FROM run_events)
		   AND r.finished_at < now() - $1 * interval '1 millisecond'
		   AND NOT EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.terminal)`,
		[graceMs]
	);
	let ended = 0;
	for (const run of rows) {
		const end = encodeEvent({ event: 'end', data: { conversation: run.conversation_id, run: run.id, status: run.status } });
		if (await appendRunEvents(db, { runId: run.id, firstId: null, events: [end], terminal: true })) ended += 1;
	}
	return ended;
}

export interface RunEventSweeperOptions {
	/**
	 * RUN_EVENTS_KEEP_MS (default 5 minutes): how long after its end a run's events stay. A reader
	 * that comes back later than this (with Last-Event-ID) gets the durable outcome alone, as from a
	 * run that is no longer live on one instance; one that follows a takeover needs them for as long
	 * as it takes to read the dead run's end and go on with the run that resumed it.
	 */
	keepMs: number;
	/** Between two sweeps (default a minute); each instance sweeps, and a sweep is a few statements. */
	everyMs?: number;
	/** How long an owner has to keep the terminal event of a run it recorded (default 30 s; see endOrphanedStreams). */
	orphanGraceMs?: number;
	log: (message: string) => void;
}

/**
 * Sweeps once at start (before the instance serves), then every `everyMs` until closed: ends
 * orphaned streams, then deletes what retention lets go.
 */
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
		await this.sweep();
		this.timer = setInterval(() => {
			this.sweeping = this.sweep().then(
				() => {},
				(error: Error) => this.options.log(`Run events: sweeping old runs' events failed (${error.message}); trying again later`)
			);
		}, this.options.everyMs ?? 60_000);
		this.timer.unref();
	}

	private async sweep(): Promise<void> {
		await endOrphanedStreams(this.pool, this.options.orphanGraceMs ?? 30_000);
		await sweepRunEvents(this.pool, this.options.keepMs);
	}

	/** Stops sweeping, once any sweep under way has ended. */
	async close(): Promise<void> {
		clearInterval(this.timer);
		await this.sweeping;
	}
}
