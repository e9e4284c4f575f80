import type { RunEvent } from '../../protocol';
import type { OrphanedRun, RunLeases } from '../storage/run-leases';
import type { RunStorage } from '../storage/run-storage';
import { endEvent } from './end-event';
import { readThreadWork, type ThreadWorkSources } from './read-thread-work';
import type { ThreadWork } from './thread-work';
import type { RunOutcome } from '../storage/run-records';
import type { Telemetry } from '../telemetry/telemetry';

const INTERRUPTED = { code: 'PROCESS_EXITED', message: 'The service stopped during this run; resume it to continue.' } as const;

function recoveredOutcome(work: ThreadWork, messageCount: number): RunOutcome {
	switch (work.kind) {
		case 'finished':
			return { status: 'completed', messageCount };
		case 'waiting':
			return { status: 'waiting', messageCount };
		case 'unfinished':
			return { status: 'interrupted', error: INTERRUPTED, messageCount };
	}
}

/**
 * The runs to recover at start: with leases, only those whose owner's lease has ended (other
 * instances' live runs are theirs, and taking them over claims them); on one process every run
 * still `running`, since no other process can hold one.
 */
export function orphansAtStart(leases: Pick<RunLeases, 'takeOverAtStart'> | null, runs: Pick<RunStorage, 'listRunning'>): Promise<OrphanedRun[]> {
	return leases ? leases.takeOverAtStart() : runs.listRunning();
}

/** A run whose owner died, its outcome recorded: `end` is the terminal event its executor would have published. */
export type RecoveredRun = { id: string; conversationId: string; end: RunEvent; unfinished: boolean };

/**
 * Recovery of runs whose owner died: at start-up, before any run starts (on SQLite every run still
 * `running`; with leases, those whose lease ended), and whenever the lease keeper takes one over.
 * One whose thread had already finished (the crash fell between the final checkpoint and recording
 * the outcome) is `completed`, one that had paused for a person `waiting`; the rest are
 * `interrupted` (`unfinished`). Message counts are recomputed from the threads. A run another
 * instance recorded first is left out. Their ends are kept by `endRecoveredRuns`, once it is known
 * which are resumed.
 */
export async function recoverRuns(
	parts: ThreadWorkSources & { now: () => string; telemetry?: Pick<Telemetry, 'recovered'> },
	orphans: readonly OrphanedRun[]
): Promise<RecoveredRun[]> {
	const recovered: RecoveredRun[] = [];
	const { runs } = parts.storage;
	for (const { id, conversationId } of orphans) {
		const record = await runs.get(id);
		const work = await readThreadWork(parts, conversationId, { id, input: record?.input ?? null });
		const messageCount = await parts.threads.messageCount(conversationId);
		const outcome = recoveredOutcome(work, messageCount);
		if (!(await runs.finish(id, outcome, parts.now()))) continue;
		// Counted by whoever recorded it: its dead owner never did, so the run is counted once.
		parts.telemetry?.recovered(outcome.status, record?.trigger ?? 'message');
		const end = endEvent({ conversation: conversationId, run: id }, outcome.status, outcome.error?.code);
		recovered.push({ id, conversationId, end, unfinished: work.kind === 'unfinished' });
	}
	return recovered;
}

/**
 * What becomes of each recovered run's stream: an unfinished one that `resume` resumes is carried on
 * by the resumed run (which kept its end, naming itself: RunService `carriesOn`); every other one
 * ends with its `end`, kept by `ended` for its readers on other instances (PostgreSQL).
 */
export async function endRecoveredRuns(
	recovered: readonly RecoveredRun[],
	parts: {
		/** AUTO_RESUME: true when the run was resumed; null without it. */
		resume: ((run: RecoveredRun) => Promise<boolean>) | null;
		/** Null on one process, where no reader outlives the run's owner. */
		ended: ((runId: string, event: RunEvent) => Promise<void>) | null;
	}
): Promise<void> {
	for (const run of recovered) {
		if (run.unfinished && (await parts.resume?.(run))) continue;
		await parts.ended?.(run.id, run.end);
	}
}
