import type { RunOutcome } from '../db/run-store';
import type { OrphanedRun } from '../storage/app-storage';
import { readThreadWork, type ThreadWorkSources } from './read-thread-work';
import type { ThreadWork } from './thread-work';

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
 * Recovery of runs whose owner died: at start-up, before any run starts (on SQLite every run still
 * `running`; with leases, those whose lease ended), and whenever the lease keeper takes one over.
 * One whose thread had already finished (the crash fell between the final checkpoint and recording
 * the outcome) is `completed`, one that had paused for a person `waiting`; the rest are
 * `interrupted`. Message counts are recomputed from the threads. Returns the interrupted runs'
 * conversations.
 */
export async function recoverRuns(parts: ThreadWorkSources & { now: () => string }, orphans: readonly OrphanedRun[]): Promise<string[]> {
	const interrupted: string[] = [];
	const { runs } = parts.storage;
	for (const { id, conversationId } of orphans) {
		const work = await readThreadWork(parts, conversationId, { id, input: (await runs.get(id))?.input ?? null });
		const messageCount = await parts.threads.messageCount(conversationId);
		await runs.finish(id, recoveredOutcome(work, messageCount), parts.now());
		if (work.kind === 'unfinished') interrupted.push(conversationId);
	}
	return interrupted;
}
