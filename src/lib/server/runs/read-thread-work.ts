import type { ThreadReader } from '../agent/thread-reader';
import type { RunStore } from '../db/run-store';
import type { ApprovalJournal } from '../tools/approval-journal';
import { threadWork, type LastRun, type ThreadWork } from './thread-work';

export type ThreadWorkSources = { threads: ThreadReader; runs: RunStore; approvals: Pick<ApprovalJournal, 'pending'> };

/**
 * Reads a thread and judges its work (thread-work.ts). `lastRun` defaults to the newest run that
 * has ended: a `running` row is either the caller's own fresh claim or another live run.
 */
export async function readThreadWork(
	sources: ThreadWorkSources,
	conversationId: string,
	lastRun: LastRun | undefined = sources.runs.list(conversationId).find((r) => r.status !== 'running')
): Promise<ThreadWork> {
	const { messages, pending } = await sources.threads.state(conversationId);
	const awaitingDecision = sources.approvals.pending(conversationId).length;
	return threadWork({ messageIds: messages.map((m) => m.id), pending, awaitingDecision }, lastRun);
}
