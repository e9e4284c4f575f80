import { EventLog } from '../stream/event-log';

export type RunInput = { kind: 'message'; message: string } | { kind: 'resume' };

/** Why a run was stopped from outside; it decides the status the run ends in. */
export type StopReason = 'shutdown';

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

	stop(reason: StopReason): void {
		if (this.reason) return;
		this.reason = reason;
		this.controller.abort(new Error(`run stopped: ${reason}`));
	}
}

/** Active runs by conversation. Only the run that holds an entry may remove it. */
export class RunRegistry {
	private readonly byConversation = new Map<string, ActiveRun>();

	add(run: ActiveRun): void {
		this.byConversation.set(run.conversationId, run);
	}

	get(conversationId: string): ActiveRun | undefined {
		return this.byConversation.get(conversationId);
	}

	remove(run: ActiveRun): void {
		if (this.byConversation.get(run.conversationId) === run) this.byConversation.delete(run.conversationId);
	}

	all(): ActiveRun[] {
		return [...this.byConversation.values()];
	}
}
