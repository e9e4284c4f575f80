import type { ConversationSummary } from '../../protocol';
import type { ConversationStorage } from '../storage/conversation-storage';
import { ApiError } from '../errors';
import { parseUuid } from '../../protocol/uuid';

/** The `:conversationId` of a route: 400 when it is not a UUID, 404 when there is no such row. */
export async function requireConversation(store: Pick<ConversationStorage, 'get'>, param: string | undefined): Promise<ConversationSummary> {
	const id = parseUuid(param);
	if (!id) throw new ApiError('BAD_REQUEST', 'Invalid Conversation ID');
	const conversation = await store.get(id);
	if (!conversation) throw new ApiError('NOT_FOUND', 'Conversation Not Found');
	return conversation;
}
