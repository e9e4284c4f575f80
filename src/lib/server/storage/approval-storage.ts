import type { AllowedTool, PendingApproval } from '../../protocol';
import type { ApprovalRequest, CheckedDecision, RecordedDecision } from './approval-records';
import type { Claim } from './run-storage';

/**
 * The approval half of the journal: a request when a tools step pauses on a call, the person's
 * decision before any run acts on it. A decided call keeps its first decision.
 */
export interface ApprovalStorage {
	/** Asks about each call once per attempt (asking again changes nothing); committed durably. */
	request(threadId: string, runId: string, requests: readonly ApprovalRequest[], now: string, expiresAt: string): Promise<void>;
	/** The calls the thread waits on, in the order they were asked about. */
	pending(threadId: string): Promise<PendingApproval[]>;
	/** The decision on the question asked before attempt `attempt` + 1 of the call, if made. */
	decision(threadId: string, toolCallId: string, attempt: number): Promise<RecordedDecision | undefined>;
	/**
	 * Claims the approval run that carries out a person's decisions and, once claimed, records them
	 * with the tools to allow from now on, in one durable transaction: `check` turns the calls
	 * waiting then into the decisions to record, or throws to refuse them (the claim is then undone).
	 * Unless 'claimed', nothing is recorded and `check` is not called.
	 */
	decideWithRun(
		conversationId: string,
		runId: string,
		now: string,
		check: (pending: readonly PendingApproval[]) => readonly CheckedDecision[]
	): Promise<Claim>;
	/** Denies every call the thread waits on, with one reason (the conversation moved on, a timeout). */
	denyPending(threadId: string, reason: string, now: string): Promise<void>;
	/** Threads with a call nobody decided by `now`. */
	expiredThreads(now: string): Promise<string[]>;
	/** When the next undecided call expires, if any waits. */
	nextExpiryAt(): Promise<string | null>;
}

/** "Always allow this tool", until revoked. */
export interface AllowedToolStorage {
	/** By tool name. */
	list(): Promise<AllowedTool[]>;
	has(tool: string): Promise<boolean>;
	/** Allowing an allowed tool again keeps its first `since`. */
	allow(tool: string, now: string): Promise<void>;
	/** Whether the tool was allowed. */
	revoke(tool: string): Promise<boolean>;
}
