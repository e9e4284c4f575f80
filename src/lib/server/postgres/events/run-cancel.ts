// Cancel sent to any instance, carried to the instance that executes the run.

import type pg from 'pg';
import type { RunStatus } from '../../../protocol';
import type { NotifyBus } from '../notify-bus';
import { named } from '../named-statement.js';

type Parts = { pool: pg.Pool; bus: NotifyBus; log: (message: string) => void };

/**
 * The owner's side: while a run executes on this instance, calls `onCancel` (once) when any
 * instance asks to cancel it, including a request made before the watch began or while the bus
 * was away (the request is a row, read again then). Returns the unwatch, for the run's `finally`.
 */
export function watchForCancel(parts: Parts, runId: string, onCancel: () => void): () => void {
	let done = false;
	const fire = () => {
		if (done) return;
		done = true;
		unsubscribe();
		onCancel();
	};
	const check = () => {
		parts.pool
			.query(named('sophos_cancel_requests', 'SELECT 1 FROM run_cancels WHERE run_id = $1', [runId]))
			.then(({ rowCount }) => rowCount && fire())
			.catch((error: Error) => parts.log(`Run ${runId}: reading its cancel requests failed (${error.message})`));
	};
	const unsubscribe = parts.bus.subscribe('sophos_run_cancel', runId, { notified: fire, reconnected: check });
	check();
	return () => {
		done = true;
		unsubscribe();
	};
}

/** What the asking side learns of a run it does not execute. */
export type RemoteCancelAnswer =
	/** The run's outcome is recorded (cancelled, or whatever it ended with first): read its runs row. */
	| 'recorded'
	/** Its owner's lease has expired: the instance that takes it over records its outcome. */
	| 'owner-gone'
	/** Its owner holds its lease but did not record an outcome within `waitMs`. */
	| 'no-answer'
	| 'not-found';

export type RunState = { status: RunStatus; ownerAlive: boolean };

/**
 * The asking side: records the request and NOTIFYs sophos_run_cancel with the run id, then waits
 * until the run's outcome is recorded, hearing each batch of its events (the terminal one comes
 * after its runs row is final), for at most `waitMs`. `state` reads the runs row: its status, and
 * whether the owner's lease is still held.
 */
export async function askOwnerToCancel(
	parts: Parts,
	runId: string,
	options: { state: (runId: string) => Promise<RunState | undefined>; waitMs: number }
): Promise<RemoteCancelAnswer> {
	let answer: RemoteCancelAnswer | null = null;
	let resolve!: (answer: RemoteCancelAnswer) => void;
	const answered = new Promise<RemoteCancelAnswer>((r) => (resolve = r));
	const settle = (a: RemoteCancelAnswer) => {
		answer ??= a;
		resolve(answer);
	};
	const check = async () => {
		const state = await options.state(runId);
		if (!state) settle('not-found');
		else if (state.status !== 'running') settle('recorded');
		else if (!state.ownerAlive) settle('owner-gone');
	};
	const checkLogged = () => void check().catch((error: Error) => parts.log(`Run ${runId}: reading its state failed (${error.message})`));
	const unsubscribe = parts.bus.subscribe('sophos_run_events', runId, { notified: checkLogged, reconnected: checkLogged });
	const timer = setTimeout(() => settle('no-answer'), options.waitMs);
	try {
		await check();
		if (answer) return answer;
		await parts.pool.query(
			`WITH asked AS (
				INSERT INTO run_cancels (run_id) SELECT id FROM runs WHERE id = $1 AND status = 'running' ON CONFLICT DO NOTHING
			) SELECT pg_notify('sophos_run_cancel', $1)`,
			[runId]
		);
		return await answered;
	} finally {
		clearTimeout(timer);
		unsubscribe();
	}
}
