// The end of a run whose owner died, kept by the instance that takes it over.

import type pg from 'pg';
import { isTerminal, type RunEvent } from '../../../protocol';
import { appendRunEvents, encodeEvent, firstEventIdOf } from './run-event-rows.js';
import { RUN_ID_SPAN } from '../../storage/storage-engine';

export type TakenOverRun = {
	runId: string;
	/** The run's terminal event as its executor would have formed it (`end`, status `interrupted`). */
	event: RunEvent;
	/** The run that resumes it (AUTO_RESUME), already claimed; none if not resumed. */
	successorRunId?: string;
};

/**
 * Keeps the run's terminal event after its last kept one and NOTIFYs it, so every reader of the
 * run, on any instance, sees it end. Call it once the run is recorded interrupted (in a
 * transaction, the NOTIFY goes out at its commit). With a successor, readers go on with that run instead of
 * ending, and its EventLog must start at `successorFirstEventId`, above every id of this run.
 * `ended` is false when the run's stream had already ended (its owner kept its terminal event).
 */
export async function endTakenOverRun(
	db: pg.Pool | pg.PoolClient,
	run: TakenOverRun
): Promise<{ ended: boolean; successorFirstEventId: number | null }> {
	if (!isTerminal(run.event)) throw new Error(`run ${run.runId}: a taken over run ends with a terminal event, not ${run.event.event}`);
	const successorFirstEventId = run.successorRunId === undefined ? null : (await firstEventIdOf(db, run.runId)) + RUN_ID_SPAN;
	const ended = await appendRunEvents(db, {
		runId: run.runId,
		firstId: null,
		events: [encodeEvent(run.event)],
		terminal: true,
		...(run.successorRunId !== undefined ? { next: { runId: run.successorRunId, firstId: successorFirstEventId! } } : {})
	});
	return { ended, successorFirstEventId };
}
