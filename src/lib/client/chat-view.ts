/**
 * Pure. What the page shows for a snapshot of the controller: the transcript, the open
 * conversation's summary, and which indicators and banners are on.
 */
import { currentSummary, type ChatSnapshot } from './chat-snapshot';
import { modelOptions, type ModelOption } from './model-choice';
import { isBusy } from './chat-status';
import type { TimelineEntry } from './live-run';
import { buildTranscript, type TranscriptItem } from './transcript';
import type { ConversationSummary, RunUsage } from '../protocol';

export type ChatView = {
	transcript: TranscriptItem[];
	current: ConversationSummary | null;
	/** A run is being started or followed: Send is replaced by Stop. */
	busy: boolean;
	/** Until the run's first visible output (thinking, text or a tool call). */
	pending: boolean;
	/** Never while calls wait for a decision: only the decisions (or a new message) move it on. */
	showResume: boolean;
	/** Ids of the tool calls that wait for a decision, so their cards say so. */
	awaiting: ReadonlySet<string>;
	/** The approval card's buttons act: nothing is being started or followed. */
	canDecide: boolean;
	timeline: TimelineEntry[];
	/** What the run the timeline shows used in all, once it has ended. */
	runUsage: RunUsage | null;
	warnings: { code: string; message: string; servers: string[] }[];
	/** The composer's picker: empty until the model list is loaded. */
	models: ModelOption[];
};

export function chatView(s: ChatSnapshot): ChatView {
	const busy = isBusy(s.status);
	return {
		transcript: buildTranscript(s.base, s.live),
		current: currentSummary(s),
		busy,
		pending: busy && !s.live?.hasOutput,
		showResume: s.resumable && !busy && s.status !== 'loading' && s.approvals.length === 0,
		awaiting: new Set(s.approvals.map((a) => a.toolCallId)),
		canDecide: s.status === 'idle',
		timeline: s.live?.timeline ?? [],
		runUsage: s.lastRunUsage,
		warnings: s.live?.warnings ?? [],
		models: modelOptions(s.models, s.modelChoice)
	};
}
