/**
 * Pure. A thread's status in the protocol, from the status of its conversation's latest run:
 * `busy` while a run holds it; `interrupted` while calls wait for a person, or when a crash or a
 * shutdown left it resumable (a resume, or `input: null`, continues it); `error` after a failure;
 * `idle` otherwise: never run, finished, or cancelled (a cancel is a person's choice, the thread is
 * ready for the next message).
 */
import type { RunStatus } from '../../protocol';
import type { ThreadStatus } from './protocol-dtos';

const STATUS_OF: Record<RunStatus, ThreadStatus> = {
	running: 'busy',
	waiting: 'interrupted',
	interrupted: 'interrupted',
	failed: 'error',
	completed: 'idle',
	cancelled: 'idle'
};

export function threadStatusOf(latestRun: RunStatus | null): ThreadStatus {
	return latestRun === null ? 'idle' : STATUS_OF[latestRun];
}

/** The latest-run statuses that give a thread `status` (null: never run), for a search by status. */
export function runStatusesFor(status: ThreadStatus): (RunStatus | null)[] {
	const statuses: (RunStatus | null)[] = (Object.keys(STATUS_OF) as RunStatus[]).filter((s) => STATUS_OF[s] === status);
	return status === 'idle' ? [...statuses, null] : statuses;
}
