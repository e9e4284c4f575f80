import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';
import { SophosError } from '$lib/server/errors';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const rt = runtime();
		const conversation = requireConversation(rt.conversations, params.conversationId);
		const { messages } = await rt.threads.state(conversation.id);
		const { pending, lostInput } = await rt.runService.pendingWork(conversation.id);
		const resumable = (pending.length > 0 || lostInput !== null) && !rt.runs.hasRunning(conversation.id);
		const queue = rt.queue.list(conversation.id);
		return jsonResponse({ conversation, messages, resumable, queue });
	} catch (e) {
		return errorResponse(e);
	}
};

export const DELETE: RequestHandler = async ({ params }) => {
	try {
		const rt = runtime();
		const conversation = requireConversation(rt.conversations, params.conversationId);
		if (rt.runs.hasRunning(conversation.id)) {
			throw new SophosError('SESSION_IN_PROGRESS', 'A run is active on this conversation; wait for it to end');
		}
		rt.deleteConversation(conversation.id);
		return new Response(null, { status: 204 });
	} catch (e) {
		return errorResponse(e);
	}
};
