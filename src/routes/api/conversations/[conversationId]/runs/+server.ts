import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const { conversations } = runtime();
		const conversation = await requireConversation(conversations, params.conversationId);
		return jsonResponse({ runs: await conversations.runs(conversation.id) });
	} catch (e) {
		return errorResponse(e);
	}
};
