/**
 * Pure. Sophos's runs as the protocol's runs. A protocol run is the Sophos run it started as, and
 * every run that carried it on after a crash or a shutdown (an auto-resume, or a resume a client
 * asked for): a client following its id is carried to the end of the last one, and `attempt`
 * counts them. A run a crash cut short is never `success`.
 */
import type { RunRecord, RunStatus } from '../../protocol';
import { ASSISTANT_ID } from './assistant';
import type { MultitaskStrategy } from './run-create';

export type ProtocolRunStatus = 'pending' | 'running' | 'success' | 'error' | 'interrupted';

export type ProtocolRun = {
	run_id: string;
	thread_id: string;
	assistant_id: string;
	created_at: string;
	updated_at: string;
	status: ProtocolRunStatus;
	metadata: Record<string, unknown>;
	kwargs: Record<string, unknown>;
	multitask_strategy: MultitaskStrategy;
};

/**
 * A pause for approval ends its run: the run is a `success` and its thread `interrupted`, as
 * LangGraph reports a run that stopped at an interrupt. A crash or shutdown that nothing has
 * resumed yet is `interrupted`, a cancel too.
 */
const STATUS: Record<RunStatus, ProtocolRunStatus> = {
	running: 'running',
	completed: 'success',
	waiting: 'success',
	failed: 'error',
	cancelled: 'interrupted',
	interrupted: 'interrupted'
};

/** A run another one carries on: cut short by a crash, a shutdown or a takeover. */
const carriedOn = (r: RunRecord) => r.status === 'interrupted';
/** The runs that carry a cut-short run on: a resume, whether the service or a client asked for it. */
const carriesOn = (r: RunRecord) => r.trigger === 'auto-resume' || r.trigger === 'resume';

/**
 * The Sophos runs of protocol run `runId`, oldest first: it, and the resumes that carried it on.
 * `runs` are the conversation's runs, newest first, as storage lists them; empty if it is not there.
 */
export function chainOf(runs: readonly RunRecord[], runId: string): RunRecord[] {
	const at = runs.findIndex((r) => r.id === runId);
	if (at < 0) return [];
	const chain = [runs[at]!];
	for (let i = at - 1; i >= 0 && carriedOn(chain.at(-1)!) && carriesOn(runs[i]!); i--) chain.push(runs[i]!);
	return chain;
}

/** The protocol runs of a conversation, newest first: every run but the auto-resumes, which carry another on. */
export function protocolRunIds(runs: readonly RunRecord[]): string[] {
	return runs.filter((r) => r.trigger !== 'auto-resume').map((r) => r.id);
}

export function protocolRunOf(threadId: string, chain: readonly RunRecord[], multitask: MultitaskStrategy = 'reject'): ProtocolRun {
	const first = chain[0]!;
	const last = chain.at(-1)!;
	return {
		run_id: first.id,
		thread_id: threadId,
		assistant_id: ASSISTANT_ID,
		created_at: first.startedAt,
		updated_at: last.finishedAt ?? last.startedAt,
		status: STATUS[last.status],
		metadata: {},
		kwargs: { attempt: chain.length },
		multitask_strategy: multitask
	};
}

/** A message queued behind the thread's run (`enqueue`): a pending run, whose id its run takes when it starts. */
export function pendingRunOf(threadId: string, queued: { id: string; createdAt: string }): ProtocolRun {
	return {
		run_id: queued.id,
		thread_id: threadId,
		assistant_id: ASSISTANT_ID,
		created_at: queued.createdAt,
		updated_at: queued.createdAt,
		status: 'pending',
		metadata: {},
		kwargs: { attempt: 0 },
		multitask_strategy: 'enqueue'
	};
}

export const isFinished = (status: ProtocolRunStatus) => status !== 'pending' && status !== 'running';

/** Where a run is read (Content-Location) and where its stream is (Location). */
export const runPaths = (threadId: string, runId: string) => ({
	'Content-Location': `/threads/${threadId}/runs/${runId}`,
	Location: `/threads/${threadId}/runs/${runId}/stream`
});
