/**
 * Pure. The chat page's state as one immutable snapshot, its starting value, and the words the
 * page uses for how a run ended. The controller (chat-controller.ts) owns the transitions.
 */
import type { ChatStatus } from './chat-status';
import type { LiveRun } from './live-run';
import type { ConversationSummary, MessageDto, ModelList, PendingApproval, PendingElicitation, Readiness, RunUsage, WireError } from '../protocol';

export type Notice = { kind: 'detached' | 'cancelled' | 'info'; message: string };

export type ChatSnapshot = {
	status: ChatStatus;
	/** The first load (list, readiness, the conversation to open) is done. */
	started: boolean;
	/** A finished run's durable transcript is being fetched to replace the live one. */
	syncing: boolean;
	/** The run stream's connection while following: `reconnecting` after a drop (e.g. a restart). */
	connection: 'connecting' | 'open' | 'reconnecting' | null;
	/** The most recently updated conversations: a page that "Show more" makes longer. */
	conversations: ConversationSummary[];
	/** Older conversations exist beyond `conversations`. */
	hasMoreConversations: boolean;
	listState: 'loading' | 'ready' | 'error';
	conversationId: string | null;
	/** The open conversation's summary as last loaded: it may be older than the listed page. */
	loadedSummary: ConversationSummary | null;
	/** Durable messages, plus the user's own message while its run is young. */
	base: MessageDto[];
	/** The run followed last (its partial transcript while live, its timeline after). */
	live: LiveRun | null;
	runId: string | null;
	resumable: boolean;
	/**
	 * The calls the open conversation waits on a person's decision for: from its detail, or from
	 * the run's `approval` event until the detail is read again after `end`.
	 */
	approvals: PendingApproval[];
	/** The questions tool servers ask during the followed run (MCP elicitation), from its events. */
	elicitations: PendingElicitation[];
	error: WireError | null;
	notice: Notice | null;
	readiness: Readiness | null;
	/** GET /api/models as last loaded; null until then, or when it could not be. */
	models: ModelList | null;
	/** The composer's model for the open conversation (or a new one): its own, until the reader picks another. */
	modelChoice: string | null;
	/** What the last run followed here used in all, for the timeline; null until it has ended. */
	lastRunUsage: RunUsage | null;
};

/** The open conversation's summary: from the list, or as last loaded when it is older than the listed page. */
export function currentSummary(s: ChatSnapshot): ConversationSummary | null {
	return s.conversations.find((c) => c.id === s.conversationId) ?? (s.loadedSummary?.id === s.conversationId ? s.loadedSummary : null);
}

export type StopResult = 'cancelling' | 'detached' | 'ended' | 'failed' | 'not-streaming';

export const DETACHED_MESSAGE =
	'Stopped following this run. This server cannot cancel runs, so it goes on in the background and its answer will be saved here.';
export const CANCELLING_MESSAGE = 'Asking the server to cancel this run…';
export const CANCELLED_MESSAGE = 'You stopped this run. What it did before stopping is saved.';
export const IN_PROGRESS_MESSAGE =
	'A run is still going on in this conversation, so your message was not sent. Showing that run; send again when it ends.';

export const DECIDED_ELSEWHERE_MESSAGE =
	'These calls were already decided, perhaps in another tab. Showing the conversation as it is now.';
export const DECIDING_ELSEWHERE_MESSAGE =
	'These calls were already decided, perhaps in another tab. Showing the run that carries the decisions out.';

export const INITIAL_SNAPSHOT: ChatSnapshot = {
	status: 'idle',
	started: false,
	syncing: false,
	connection: null,
	conversations: [],
	hasMoreConversations: false,
	listState: 'loading',
	conversationId: null,
	loadedSummary: null,
	base: [],
	live: null,
	runId: null,
	resumable: false,
	approvals: [],
	elicitations: [],
	error: null,
	notice: null,
	readiness: null,
	models: null,
	modelChoice: null,
	lastRunUsage: null
};
