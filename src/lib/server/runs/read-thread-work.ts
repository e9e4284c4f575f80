import type { ThreadReader } from './thread-reader';
import type { AppStorage } from '../storage/app-storage';
import { threadWork, type LastRun, type ThreadWork } from './thread-work';

export type ThreadWorkSources = {
	threads: ThreadReader;
	storage: Pick<AppStorage, 'runs' | 'approvals' | 'branches'>;
};

/**
 * Reads a thread at its active branch's head and judges its work (thread-work.ts). `lastRun`
 * defaults to the newest run that has ended since the branch was last switched: a `running` row
 * is either the caller's own fresh claim or another live run, and a run from before a switch ran on
 * another branch, so its message is not one this branch lost.
 */
export async function readThreadWork(sources: ThreadWorkSources, conversationId: string, lastRun?: LastRun): Promise<ThreadWork> {
	const { messages, pending } = await sources.threads.state(conversationId);
	const awaitingDecision = (await sources.storage.approvals.pending(conversationId)).length;
	return threadWork(
		{ messageIds: messages.map((m) => m.id), pending, awaitingDecision },
		lastRun ?? (await lastRunOnBranch(sources, conversationId))
	);
}

async function lastRunOnBranch(sources: ThreadWorkSources, conversationId: string): Promise<LastRun | undefined> {
	const runs = await sources.storage.runs.list(conversationId);
	const switchedAfter = await sources.storage.branches.switchedAfterRun(conversationId);
	const cut = switchedAfter === null ? -1 : runs.findIndex((r) => r.id === switchedAfter);
	return runs.slice(0, cut === -1 ? undefined : cut).find((r) => r.status !== 'running');
}
