import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';
import { NO_USAGE, usageByRun } from '$lib/server/models/run-usage';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const rt = runtime();
		const conversation = await requireConversation(rt.storage.conversations, params.conversationId);
		// Every branch's answers: a run whose branch is not the one shown still used what it used.
		const usage = usageByRun(await rt.branchReader.everyBranchMessages(conversation.id));
		return jsonResponse({ runs: (await rt.storage.runs.list(conversation.id)).map((run) => ({ ...run, usage: usage.get(run.id) ?? NO_USAGE })) });
	} catch (e) {
		return errorResponse(e);
	}
};
