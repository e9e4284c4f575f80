/**
 * Pure. What the page shows for a snapshot of the controller: the transcript, the open
 * conversation's summary, and which indicators and banners are on.
 */
import type { ChatSnapshot } from './chat-snapshot';
import { isBusy } from './chat-status';
import type { TimelineEntry } from './live-run';
import { buildTranscript, type TranscriptItem } from './transcript';
import type { ConversationSummary } from '../protocol';

export type ChatView = {
	transcript: TranscriptItem[];
	current: ConversationSummary | null;
	/** A run is being started or followed: Send is replaced by Stop. */
	busy: boolean;
	/** Until the run's first visible output (thinking, text or a tool call). */
	pending: boolean;
	showResume: boolean;
	timeline: TimelineEntry[];
	warnings: { code: string; message: string; servers: string[] }[];
};

export function chatView(s: ChatSnapshot): ChatView {
	const busy = isBusy(s.status);
	return {
		transcript: buildTranscript(s.base, s.live),
		current:
			s.conversations.find((c) => c.id === s.conversationId) ??
			(s.loadedSummary?.id === s.conversationId ? s.loadedSummary : null),
		busy,
		pending: busy && !s.live?.hasOutput,
		showResume: s.resumable && !busy && s.status !== 'loading',
		timeline: s.live?.timeline ?? [],
		warnings: s.live?.warnings ?? []
	};
}
