// Where the events of a run that carries on another run's stream start: a resume of a run whose
// owner died (AUTO_RESUME), whose readers, holding that run's ids, go on reading the resumed one.

import type { RunTrigger } from '../../protocol';
import type { RunStorage } from '../storage/run-storage';
import type { RecoveredRun } from './run-recovery';
import { RUN_ID_SPAN, type SharedRuns } from '../storage/storage-engine';

/**
 * Keeps the end of `run` so that its readers carry on with `successorRunId` (on PostgreSQL, the
 * takeover's terminal row names it), and answers the id the successor's EventLog starts at.
 */
export type CarryOn = (run: RecoveredRun, successorRunId: string) => Promise<number>;

/**
 * Pure. On one process no event outlives it, so the id a resumed run starts at comes from the
 * conversation's runs (newest first): every auto-resume in a row up to `predecessorId` started
 * RUN_ID_SPAN above the run before it, so the next one starts a span above the last.
 */
export function carriedFirstEventId(runs: readonly { id: string; trigger: RunTrigger }[], predecessorId: string): number {
	const from = runs.findIndex((r) => r.id === predecessorId);
	if (from === -1) throw new Error(`run ${predecessorId} is not among its conversation's runs`);
	let carried = 1;
	while (runs[from + carried - 1]?.trigger === 'auto-resume') carried++;
	return carried * RUN_ID_SPAN + 1;
}

/**
 * Where several instances share the database, the takeover's kept end names the successor and the
 * kept events say where the dead run's ids began (postgres/events/run-takeover.ts); on one process,
 * `carriedFirstEventId` over the conversation's runs.
 */
export function carryOnFor(shared: Pick<SharedRuns, 'carriedOn'> | null, runs: Pick<RunStorage, 'list'>): CarryOn {
	if (shared) return (run, successorRunId) => shared.carriedOn(run.id, run.end, successorRunId);
	return async (run) => carriedFirstEventId(await runs.list(run.conversationId), run.id);
}
