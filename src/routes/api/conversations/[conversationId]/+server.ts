import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';
import { unlessRefused } from '$lib/server/http/run-refusal-error';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const { conversations } = runtime();
		return jsonResponse(await conversations.detail(await requireConversation(conversations, params.conversationId)));
	} catch (e) {
		return errorResponse(e);
	}
};

export const DELETE: RequestHandler = async ({ params }) => {
	try {
		const { conversations } = runtime();
		unlessRefused(await conversations.delete((await requireConversation(conversations, params.conversationId)).id));
		return new Response(null, { status: 204 });
	} catch (e) {
		return errorResponse(e);
	}
};
