import type { ThreadReader } from '../agent/thread-reader';
import type { BranchStore } from '../db/branch-store';
import type { RunStore } from '../db/run-store';
import type { ApprovalJournal } from '../tools/approval-journal';
import { threadWork, type LastRun, type ThreadWork } from './thread-work';

export type ThreadWorkSources = {
	threads: ThreadReader;
	runs: RunStore;
	approvals: Pick<ApprovalJournal, 'pending'>;
	branches: Pick<BranchStore, 'switchedAfterRun'>;
};

/**
 * Reads a thread at its active branch's head and judges its work (thread-work.ts). `lastRun`
 * defaults to the newest run that has ended since the branch was last switched: a `running` row
 * is either the caller's own fresh claim or another live run, and a run from before a switch ran on
 * another branch, so its message is not one this branch lost.
 */
export async function readThreadWork(
	sources: ThreadWorkSources,
	conversationId: string,
	lastRun: LastRun | undefined = lastRunOnBranch(sources, conversationId)
): Promise<ThreadWork> {
	const { messages, pending } = await sources.threads.state(conversationId);
	const awaitingDecision = sources.approvals.pending(conversationId).length;
	return threadWork({ messageIds: messages.map((m) => m.id), pending, awaitingDecision }, lastRun);
}

function lastRunOnBranch(sources: ThreadWorkSources, conversationId: string): LastRun | undefined {
	const runs = sources.runs.list(conversationId);
	const switchedAfter = sources.branches.switchedAfterRun(conversationId);
	const cut = switchedAfter === null ? -1 : runs.findIndex((r) => r.id === switchedAfter);
	return runs.slice(0, cut === -1 ? undefined : cut).find((r) => r.status !== 'running');
}
