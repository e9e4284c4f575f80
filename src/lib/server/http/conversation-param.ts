import type { ConversationSummary, ConversationStore } from '../db/conversation-store';
import { SophosError } from '../errors';
import { parseUuid } from './uuid';

/** The `:conversationId` of a route: 400 when it is not a UUID, 404 when there is no such row. */
export function requireConversation(store: ConversationStore, param: string | undefined): ConversationSummary {
	const id = parseUuid(param);
	if (!id) throw new SophosError('BAD_REQUEST', 'Invalid Conversation ID');
	const conversation = store.get(id);
	if (!conversation) throw new SophosError('NOT_FOUND', 'Conversation Not Found');
	return conversation;
}
