import type { Decision, IfBusy, RunTrigger } from '../../protocol';
import type { RecoveredRun } from './run-recovery';

/** `model`: the `<provider>/<model>` the conversation answers with from this run on, checked by the caller. */
export type StartRequest =
	| {
			kind: 'message';
			conversation: string | null;
			message: string;
			ifBusy?: IfBusy;
			model?: string;
			/** The run's id (and, queued, its queue entry's), when the caller derives it: a retried request finds its run by it. */
			runId?: string;
			/** An unknown `conversation` is created with this message rather than refused (the protocol's `if_not_exists`). */
			createIfMissing?: boolean;
	  }
	| ResumeRequest
	| { kind: 'decide'; conversation: string; decisions: Decision[] }
	| BranchRequest;

export type ResumeRequest = {
	kind: 'resume';
	conversation: string;
	trigger?: Extract<RunTrigger, 'resume' | 'auto-resume'>;
	model?: string;
	/** The run whose owner died that this one resumes (auto-resume): its readers carry on with this one. */
	carriesOn?: RecoveredRun;
};

/** A run that starts a new branch: an edit of a user message, or a regenerate of an answer. */
export type BranchRequest =
	| { kind: 'edit'; conversation: string; editOf: string; message: string; ifBusy?: IfBusy; model?: string; runId?: string }
	| { kind: 'regenerate'; conversation: string; messageId: string; ifBusy?: IfBusy; model?: string };

/** A request that claims an existing conversation (a decision claims through the approval journal instead). */
export type ClaimRequest = Exclude<StartRequest, { kind: 'decide' }> & { conversation: string };
