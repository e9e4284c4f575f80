import type { EventLog } from '../stream/event-log';
import type { ActiveRun } from './active-run';

/**
 * Ended runs whose event logs stay readable. A page that started a run opens its stream after the
 * start answered; a fast run can end in between, and without its log the page would learn only
 * the outcome, never the steps (its timeline). Bounded by count, so memory is a few answers' text.
 */
const ENDED_KEPT = 32;

/**
 * Active runs of this process by conversation and by id, and the logs of the last few that ended
 * here. Only the run that holds an entry may remove it.
 */
export class RunRegistry {
	private readonly byConversation = new Map<string, ActiveRun>();
	private readonly byId = new Map<string, ActiveRun>();
	/** In the order the runs ended, oldest first. */
	private readonly ended = new Map<string, { conversationId: string; log: EventLog }>();

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
		if (!run.log.isEnded) return;
		this.ended.set(run.id, { conversationId: run.conversationId, log: run.log });
		for (const id of this.ended.keys()) {
			if (this.ended.size <= ENDED_KEPT) break;
			this.ended.delete(id);
		}
	}

	/** The whole log of `runId`, the conversation's run, if it ended here lately. */
	endedLog(conversationId: string, runId: string): EventLog | undefined {
		const kept = this.ended.get(runId);
		return kept?.conversationId === conversationId ? kept.log : undefined;
	}

	all(): ActiveRun[] {
		return [...this.byId.values()];
	}
}
