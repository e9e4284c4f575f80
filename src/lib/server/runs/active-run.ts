import { RunControl } from '@langchain/langgraph';
import { EventLog } from '../stream/event-log';
import { UnconfirmedWrites } from '../tools/unconfirmed-writes';

/**
 * A message run's user message carries an id (the id of the run it was first sent with), so whether
 * it reached the thread can be checked; a resume re-sends a message that never did.
 */
export type UserInput = { id: string; message: string };

/**
 * What a run sends, from where its conversation's active branch has its head: a message, a resume
 * (of the head's pending step, after any lost message), a regenerate (the head is the checkpoint
 * before the step that produced the answer, so that step runs again), or decisions: a decided run
 * continues a thread that paused for a person; the decisions are in the journal.
 * An edit is a message run whose head was moved, with its claim, to the checkpoint before the
 * message it replaces: LangGraph forks from there.
 */
export type RunInput =
	| { kind: 'message'; input: UserInput }
	| { kind: 'resume'; lostInput: UserInput | null }
	| { kind: 'regenerate' }
	| { kind: 'decided' };

/**
 * Why a run was stopped from outside; it decides the status the run ends in. `taken-over`: another
 * instance owns it now (runs/lease-keeper.ts), and this one may no longer write it.
 */
export type StopReason = 'cancel' | 'shutdown' | 'taken-over';

/**
 * A run executing in this process: its event log and the two ways it is stopped, both its own.
 * A drain (`requestStop`) is LangGraph's RunControl, honoured at the next step boundary so the
 * thread keeps a clean checkpoint; an abort also cancels the model request and tool calls in flight.
 */
export class ActiveRun {
	readonly log: EventLog;
	/** Handed to the graph with the run's config; the graph's nodes and its loop both read it. */
	readonly control = new RunControl();
	private readonly controller = new AbortController();
	private reason: StopReason | null = null;
	/** What the run's steps sent without waiting for its commit; its end waits for them. */
	readonly unconfirmed = new UnconfirmedWrites();
	/** Settles once the outcome is recorded, retention has run and the next queued message (if any) has started. */
	done: Promise<void> = Promise.resolve();

	/** `firstEventId`: above every id of the run it carries on, for a resume of a run whose owner died (runs/carried-stream.ts). */
	constructor(
		readonly id: string,
		readonly conversationId: string,
		bufferLimit: number,
		firstEventId = 1
	) {
		this.log = new EventLog(bufferLimit, undefined, firstEventId);
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	/**
	 * Going on with no reader here: not stopping, not ended, and no stream of this process follows
	 * it. What on_disconnect "cancel" asks before it cancels (readers on other instances aside).
	 */
	get unfollowed(): boolean {
		return !this.signal.aborted && !this.log.isEnded && this.log.followers === 0;
	}

	get stopReason(): StopReason | null {
		return this.reason;
	}

	/** Asks the run to stop at its next step boundary; the first reason given is the one kept. */
	requestStop(reason: StopReason): void {
		this.reason ??= reason;
		this.control.requestDrain(this.reason);
	}

	/** Stops the run now: the model request and tool calls in flight are aborted (MCP calls cancelled). */
	abort(reason: StopReason): void {
		this.requestStop(reason);
		this.controller.abort(new RunStopped(`run stopped: ${this.reason}`));
	}
}

/** The reason an aborted run's signal carries, so what it cut short can tell a stop from a failure. */
export class RunStopped extends Error {
	override name = 'RunStopped';
}
