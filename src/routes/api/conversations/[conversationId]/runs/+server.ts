import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';
import { NO_USAGE, usageByRun } from '$lib/server/models/run-usage';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const rt = runtime();
		const conversation = requireConversation(rt.conversations, params.conversationId);
		const usage = usageByRun(await rt.threads.messages(conversation.id));
		return jsonResponse({ runs: rt.runs.list(conversation.id).map((run) => ({ ...run, usage: usage.get(run.id) ?? NO_USAGE })) });
	} catch (e) {
		return errorResponse(e);
	}
};
