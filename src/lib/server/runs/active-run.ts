import { EventLog } from '../stream/event-log';

/**
 * A message run's user message carries an id (the id of the run it was first sent with), so whether
 * it reached the thread can be checked; a resume re-sends a message that never did.
 */
export type UserInput = { id: string; message: string };

export type RunInput = { kind: 'message'; input: UserInput } | { kind: 'resume'; lostInput: UserInput | null };

/** Why a run was stopped from outside; it decides the status the run ends in. */
export type StopReason = 'cancel' | 'shutdown';

/** Thrown by a node that starts after its run was asked to stop: the stop lands on a step boundary. */
export class RunStopped extends Error {
	override name = 'RunStopped';
}

/** A run executing in this process: its event log, its abort signal and the promise that owns it. */
export class ActiveRun {
	readonly log: EventLog;
	private readonly controller = new AbortController();
	private reason: StopReason | null = null;
	done: Promise<void> = Promise.resolve();

	constructor(
		readonly id: string,
		readonly conversationId: string,
		bufferLimit: number
	) {
		this.log = new EventLog(bufferLimit);
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	get stopReason(): StopReason | null {
		return this.reason;
	}

	/** Asks the run to stop at its next step boundary; the first reason given is the one kept. */
	requestStop(reason: StopReason): void {
		this.reason ??= reason;
	}

	/** Stops the run now: the model request and tool calls in flight are aborted (MCP calls cancelled). */
	abort(reason: StopReason): void {
		this.requestStop(reason);
		this.controller.abort(new RunStopped(`run stopped: ${this.reason}`));
	}
}

/** Active runs by conversation and by id. Only the run that holds an entry may remove it. */
export class RunRegistry {
	private readonly byConversation = new Map<string, ActiveRun>();
	private readonly byId = new Map<string, ActiveRun>();

	add(run: ActiveRun): void {
		this.byConversation.set(run.conversationId, run);
		this.byId.set(run.id, run);
	}

	get(conversationId: string): ActiveRun | undefined {
		return this.byConversation.get(conversationId);
	}

	getById(runId: string): ActiveRun | undefined {
		return this.byId.get(runId);
	}

	remove(run: ActiveRun): void {
		if (this.byConversation.get(run.conversationId) === run) this.byConversation.delete(run.conversationId);
		this.byId.delete(run.id);
	}

	all(): ActiveRun[] {
		return [...this.byId.values()];
	}
}
