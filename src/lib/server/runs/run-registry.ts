import type { ActiveRun } from './active-run';

/** Active runs of this process by conversation and by id. Only the run that holds an entry may remove it. */
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
