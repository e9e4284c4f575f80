import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';
import type { ConversationDetail } from '$lib/protocol';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const rt = runtime();
		const conversation = requireConversation(rt.conversations, params.conversationId);
		const { messages } = await rt.threads.state(conversation.id);
		const work = await rt.threadWork(conversation.id);
		const resumable = work.kind === 'unfinished' && !rt.runs.hasRunning(conversation.id);
		const detail: ConversationDetail = {
			conversation,
			messages,
			resumable,
			queue: rt.queue.list(conversation.id),
			approvals: rt.approvals.pending(conversation.id)
		};
		return jsonResponse(detail);
	} catch (e) {
		return errorResponse(e);
	}
};

export const DELETE: RequestHandler = async ({ params }) => {
	try {
		const rt = runtime();
		rt.deleteConversation(requireConversation(rt.conversations, params.conversationId).id);
		return new Response(null, { status: 204 });
	} catch (e) {
		return errorResponse(e);
	}
};
