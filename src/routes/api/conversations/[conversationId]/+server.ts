import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const rt = runtime();
		return jsonResponse(await rt.detail(await requireConversation(rt.storage.conversations, params.conversationId)));
	} catch (e) {
		return errorResponse(e);
	}
};

export const DELETE: RequestHandler = async ({ params }) => {
	try {
		const rt = runtime();
		await rt.storage.conversations.delete((await requireConversation(rt.storage.conversations, params.conversationId)).id);
		return new Response(null, { status: 204 });
	} catch (e) {
		return errorResponse(e);
	}
};
