import type { RunEvent, RunStatus } from '../../protocol';

/**
 * The `end` event of a run, formed here only: the executor's, a recovered run's, and the one a
 * reader of a conversation with no run in flight gets (no `run` then). `cause`: the code behind a
 * status that is not a failure (an interruption's PROCESS_EXITED).
 */
export function endEvent(ids: { conversation: string; run?: string }, status: RunStatus | null, cause?: string): Extract<RunEvent, { event: 'end' }> {
	return { event: 'end', data: { ...ids, status, ...(cause ? { cause } : {}) } };
}
