import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';

export const GET: RequestHandler = ({ params }) => {
	try {
		const rt = runtime();
		const conversation = requireConversation(rt.conversations, params.conversationId);
		return jsonResponse({ runs: rt.runs.list(conversation.id) });
	} catch (e) {
		return errorResponse(e);
	}
};
