/** Pure. What a request to start a run means: the claim it makes, and what becomes of it when the conversation is busy. */
import type { IfBusy, RunTrigger } from '../../protocol';
import type { Claim } from '../storage/run-storage';
import type { RunInput } from './active-run';
import type { ForkTarget } from './fork-point';
import type { RunRefusal } from './run-refusal';
import type { ClaimRequest } from './start-request';

export type RunPlan = {
	conversation: string;
	trigger: RunTrigger;
	/** The user message the run sends (an edit's new text too); null for a resume or a regenerate. */
	input: string | null;
	/** The model the claim records; a resume's is set only once it is sure to go ahead. */
	claimModel: string | undefined;
	/** Where a branch starts is found before the claim; null: the run goes on from the head. */
	fork: ForkTarget | null;
	ifBusy: IfBusy;
	/** What a queued copy of the request remembers besides its message and model. */
	queued: { editOf?: string; regenerate?: string };
};

export function planRun(request: ClaimRequest): RunPlan {
	const ifBusy = request.kind === 'resume' ? 'reject' : (request.ifBusy ?? 'reject');
	const base = { conversation: request.conversation, ifBusy, claimModel: request.kind === 'resume' ? undefined : request.model };
	switch (request.kind) {
		case 'message':
			return { ...base, trigger: 'message', input: request.message, fork: null, queued: {} };
		case 'resume':
			return { ...base, trigger: request.trigger ?? 'resume', input: null, fork: null, queued: {} };
		case 'edit':
			return { ...base, trigger: 'edit', input: request.message, fork: { kind: 'edit', messageId: request.editOf }, queued: { editOf: request.editOf } };
		case 'regenerate':
			return {
				...base,
				trigger: 'regenerate',
				input: null,
				fork: { kind: 'regenerate', messageId: request.messageId },
				queued: { regenerate: request.messageId }
			};
	}
}

/** The branch a queued edit or regenerate starts, if it is one. */
export const queuedFork = (q: { editOf?: string; regenerate?: string }): ForkTarget | null =>
	q.editOf ? { kind: 'edit', messageId: q.editOf } : q.regenerate ? { kind: 'regenerate', messageId: q.regenerate } : null;

/** A run that sends `message`, or with none a regenerate: the head's pending step runs. */
export const runInputOf = (runId: string, message: string | null): RunInput =>
	message === null ? { kind: 'regenerate' } : { kind: 'message', input: { id: runId, message } };

/**
 * The busy rules, for any request whose claim was refused: "enqueue" queues it behind the
 * conversation's run or the cap; at the cap anything else is refused; "interrupt" cancels a run
 * this process executes and takes its slot; the rest is busy.
 */
export function onBusy(
	claim: Exclude<Claim, 'claimed'>,
	ifBusy: IfBusy,
	runningHere: boolean,
	maxConcurrentRuns: number
): 'queue' | 'interrupt' | RunRefusal {
	if (claim === 'missing') return claimRefusal(claim, maxConcurrentRuns);
	if (ifBusy === 'enqueue') return 'queue';
	if (claim === 'busy' && ifBusy === 'interrupt' && runningHere) return 'interrupt';
	return claimRefusal(claim, maxConcurrentRuns);
}

/** A refused claim of a request that neither queues nor interrupts. */
export const claimRefusal = (claim: Exclude<Claim, 'claimed'>, maxConcurrentRuns: number): RunRefusal =>
	claim === 'full' ? { refused: 'full', maxConcurrentRuns } : claim === 'missing' ? { refused: 'conversation-not-found' } : { refused: 'busy' };
