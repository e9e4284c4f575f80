/**
 * The sidebar's list of conversations, newest first, a page at a time. It is fetched again after
 * every run, delete and decision; answers can cross, so only the latest request's answer is applied.
 */
import type { ChatApi } from './chat-api';
import type { ChatSnapshot } from './chat-snapshot';

/**
 * Conversations the sidebar asks for at a time. The list is fetched again after every run, so
 * with thousands of conversations a page keeps that cheap; "Show more" adds another page.
 */
export const LIST_PAGE = 100;

type ListState = Pick<ChatSnapshot, 'conversations' | 'hasMoreConversations' | 'listState' | 'error'>;

export class ConversationList {
	private request = 0;
	private limit = LIST_PAGE;

	constructor(
		private readonly api: Pick<ChatApi, 'listConversations'>,
		private readonly read: () => ListState,
		private readonly write: (patch: Partial<ListState>) => void
	) {}

	async refresh(): Promise<void> {
		const request = ++this.request;
		const res = await this.api.listConversations(this.limit);
		if (request !== this.request) return;
		if (res.ok) {
			const { conversations, hasMore } = res.value;
			this.write({ conversations, hasMoreConversations: hasMore, listState: 'ready' });
		} else if (this.read().listState !== 'ready') {
			this.write({ listState: 'error', error: { code: 'LOAD_CONVERSATIONS_ERROR', message: `Failed to load conversations (${res.error.message})` } });
		}
	}

	/** Lists another page of older conversations; later refreshes keep the longer page. */
	async showMore(): Promise<void> {
		this.limit = this.read().conversations.length + LIST_PAGE;
		await this.refresh();
	}
}
