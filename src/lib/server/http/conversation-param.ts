import type { ConversationSummary } from '../../protocol';
import type { ConversationStore } from '../db/conversation-store';
import { ApiError } from '../errors';
import { parseUuid } from './uuid';

/** The `:conversationId` of a route: 400 when it is not a UUID, 404 when there is no such row. */
export function requireConversation(store: ConversationStore, param: string | undefined): ConversationSummary {
	const id = parseUuid(param);
	if (!id) throw new ApiError('BAD_REQUEST', 'Invalid Conversation ID');
	const conversation = store.get(id);
	if (!conversation) throw new ApiError('NOT_FOUND', 'Conversation Not Found');
	return conversation;
}
