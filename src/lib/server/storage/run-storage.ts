import type { RunRecord, RunTrigger } from '../../protocol';
import type { RunOutcome } from './run-records';

/**
 * How a claim came out: the new run holds the conversation; another run does; maxConcurrentRuns
 * runs are running already (and the conversation is not busy itself, so enqueue and interrupt
 * answer as they would below the cap); or there is no such conversation. Only 'claimed' writes.
 */
export type Claim = 'claimed' | 'busy' | 'full' | 'missing';

/**
 * The run ledger. A run is claimed by inserting its `running` row; the engine's unique index on a
 * conversation's running run refuses a second claim, whoever makes it, in whatever process.
 */
export interface RunStorage {
	/**
	 * Claims the conversation for a new run, within maxConcurrentRuns, with nothing slipping between
	 * the count and the claim in any process. In the same commit, when claimed: a run that sends a
	 * message (a message, an edit) moves the conversation to the top of the list; `model`, the one
	 * the run chose, becomes the conversation's; `branchFrom`, the checkpoint a run that starts a
	 * branch begins at, becomes the active branch's head.
	 */
	claim(
		conversationId: string,
		runId: string,
		now: string,
		trigger: RunTrigger,
		input: string | null,
		also?: { branchFrom?: string; model?: string }
	): Promise<Claim>;
	/** Moves the conversation to the top of the list once its run is sure to go ahead. */
	touchConversation(conversationId: string, now: string): Promise<void>;
	/** Undoes a claim that turned out to have nothing to run; a finished run is never released. */
	releaseClaim(runId: string): Promise<void>;
	/**
	 * Records the run's outcome and the conversation's message count together. Only a `running` run
	 * changes, so of two racing outcomes exactly one is kept; returns whether this was it.
	 */
	finish(runId: string, outcome: RunOutcome, now: string): Promise<boolean>;
	get(runId: string): Promise<(RunRecord & { conversationId: string }) | undefined>;
	hasRunning(conversationId: string): Promise<boolean>;
	/** Newest first. */
	list(conversationId: string): Promise<RunRecord[]>;
	listRunning(): Promise<{ id: string; conversationId: string }[]>;
	/** Conversations whose latest run waits for a person's decision, in the whole database (sophos_waiting_runs). */
	countWaiting(): Promise<number>;
	/** What a run reads of its conversation as it begins, in one read (RunOpening). */
	opening(conversationId: string): Promise<RunOpening>;
}

/**
 * What a run reads of its conversation as it begins, in one read (on PostgreSQL each read is a
 * round trip, issue 26). None of it changes while the run holds the conversation: only the run
 * that holds it chooses a model, moves the head by a put, or asks a person.
 */
export type RunOpening = {
	/** As ConversationStorage.model: null is DEFAULT_MODEL. */
	model: string | null;
	/** As BranchStorage.head: undefined until the thread first branches. */
	head: string | undefined;
	/** Calls of the thread wait for a person's decision. */
	awaitingDecision: boolean;
	/** The conversation's newest two runs, newest first: the run itself and the one before it. */
	latestRuns: { id: string; trigger: RunTrigger }[];
};
