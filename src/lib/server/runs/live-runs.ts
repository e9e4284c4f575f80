import type { CancelResult } from '../../protocol';
import type { ConversationStorage } from '../storage/conversation-storage';
import type { RunStorage } from '../storage/run-storage';
import type { SharedRuns } from '../storage/storage-engine';
import type { LiveResponseOptions } from '../stream/sse-response';
import { liveEventResponse, singleEventResponse } from '../stream/sse-response';
import type { ActiveRun } from './active-run';
import { endEvent } from './end-event';
import type { RunRefusal } from './run-refusal';
import type { RunRegistry } from './run-registry';

/**
 * `run`: the run the caller started, whose events it wants even if it ended before the stream
 * opened. `cancelOnLeave`: on_disconnect "cancel" for a run another instance executes.
 */
export type FollowOptions = { cancelOnLeave?: boolean; run?: string };

/** A conversation's run in flight: executed by this process (`here`), or by another instance (PostgreSQL). */
export type LiveRun = { id: string; here: ActiveRun | null };

export type LiveRunsParts = {
	registry: RunRegistry;
	/** Runs other instances follow and cancel (PostgreSQL); null on one process. */
	shared: SharedRuns | null;
	storage: { runs: Pick<RunStorage, 'get' | 'list'>; conversations: Pick<ConversationStorage, 'get' | 'exists'> };
	log: (line: string, error?: unknown) => void;
};

/**
 * The runs in flight as a request sees them: which conversation has one, following it, cancelling
 * it. The one answer to "is a run active": a run this process holds (until it has left the
 * registry, so a reader who reconnects just after its end still replays it), else the
 * conversation's latest run recorded `running`: claimed and not launched yet, or executed by
 * another instance (PostgreSQL).
 */
export class LiveRuns {
	constructor(private readonly parts: LiveRunsParts) {}

	async active(conversationId: string): Promise<LiveRun | null> {
		const here = this.parts.registry.get(conversationId);
		if (here) return { id: here.id, here };
		const latest = (await this.parts.storage.runs.list(conversationId))[0];
		return latest?.status === 'running' ? { id: latest.id, here: null } : null;
	}

	async isActive(conversationId: string): Promise<boolean> {
		return (await this.active(conversationId)) !== null;
	}

	/**
	 * GET /api/chat: the live stream of the conversation's run, from after `lastEventId`; with none
	 * in flight (or its kept events unreadable), the events of `run` when the caller names the run it
	 * started and that run ended here lately (RunRegistry), else one `end` with the conversation's
	 * latest status. `cancelOnLeave` is for a run another instance executes (SharedRuns.follow); a
	 * run executed here is cancelled by its reader's caller (RunService.cancelIfUnfollowed).
	 */
	async follow(
		conversationId: string,
		lastEventId: number,
		signal: AbortSignal,
		options: (runId: string) => LiveResponseOptions,
		{ cancelOnLeave = false, run: started }: FollowOptions = {}
	): Promise<Response | Extract<RunRefusal, { refused: 'conversation-not-found' }>> {
		const run = await this.active(conversationId);
		if (run?.here) return liveEventResponse(run.here.log, lastEventId, signal, options(run.id));
		if (run && this.parts.shared) {
			try {
				return await this.parts.shared.follow(run.id, lastEventId, signal, options(run.id), cancelOnLeave);
			} catch (e) {
				// Its events could not be read (the database away): the conversation's state below is all there is.
				this.parts.log(`Run ${run.id}: following it from this instance failed`, e);
			}
		}
		// Read after the log is taken, so a conversation deleted since its run ended shows nothing of it.
		const ended = started ? this.parts.registry.endedLog(conversationId, started) : undefined;
		const conversation = await this.parts.storage.conversations.get(conversationId);
		if (!conversation) return { refused: 'conversation-not-found' };
		if (ended && started) return liveEventResponse(ended, lastEventId, signal, options(started));
		return singleEventResponse(endEvent({ conversation: conversationId }, conversation.status));
	}

	/** Cancels a run: harmless when it has already ended, and its one recorded outcome is returned. */
	async cancel(runId: string): Promise<CancelResult | Extract<RunRefusal, { refused: 'run-not-found' }>> {
		const { registry, shared, storage } = this.parts;
		const here = registry.getById(runId);
		if (here) {
			here.abort('cancel');
			await here.done;
		} else if (shared && (await storage.runs.get(runId))?.status === 'running') {
			// Another instance executes it: the request reaches it there, and is answered once its outcome is recorded.
			await shared.cancel(runId);
		}
		const record = await storage.runs.get(runId);
		if (!record) return { refused: 'run-not-found' };
		return { conversation: record.conversationId, run: runId, status: record.status };
	}

	/** Cancels the conversation's run in flight, if any; answers with its latest run either way. */
	async cancelConversation(conversationId: string): Promise<CancelResult | Extract<RunRefusal, { refused: 'conversation-not-found' | 'run-not-found' }>> {
		if (!(await this.parts.storage.conversations.exists(conversationId))) return { refused: 'conversation-not-found' };
		const run = await this.active(conversationId);
		if (run) return this.cancel(run.id);
		const latest = (await this.parts.storage.runs.list(conversationId))[0];
		return { conversation: conversationId, run: latest?.id ?? null, status: latest?.status ?? null };
	}
}
