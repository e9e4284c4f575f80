/**
 * What the parts of the chat page's controller (chat-controller.ts) share: the snapshot, the
 * epoch that drops stale answers, and the reads each part asks the others for.
 */
import type { ChatApi } from './chat-api';
import type { ChatSnapshot } from './chat-snapshot';
import type { ChatStatus } from './chat-status';
import type { ConversationDetail } from '../protocol';

export type ChatContext = {
	readonly api: ChatApi;
	readonly state: ChatSnapshot;
	set(patch: Partial<ChatSnapshot>): void;
	/** Moves the status along one of chat-status.ts's transitions; an illegal one throws. */
	to(status: ChatStatus): void;
	/** Bumped on navigation and on every run followed: an answer that comes back for an older epoch is dropped. */
	readonly epoch: number;
	nextEpoch(): number;
	refreshList(): Promise<void>;
	checkReadiness(): Promise<void>;
	/**
	 * Reads the conversation and shows it; null (the error shown) when it could not, or when the
	 * epoch moved meanwhile. `storedError`: show the error its last failed run recorded.
	 */
	loadDetail(id: string, epoch: number, opts: { storedError: boolean }): Promise<ConversationDetail | null>;
};
