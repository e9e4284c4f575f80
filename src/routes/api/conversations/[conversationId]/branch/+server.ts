import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { parseBranchRequest } from '$lib/server/http/branch-request';
import { readJsonBody } from '$lib/server/http/request-body';
import { requireConversation } from '$lib/server/http/conversation-param';
import { unlessRefused } from '$lib/server/http/run-refusal-error';

/** Makes the branch holding `messageId` active and answers with the conversation as it now reads. */
export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const { conversations } = runtime();
		const { id } = await requireConversation(conversations, params.conversationId);
		const { messageId } = parseBranchRequest(await readJsonBody(request));
		return jsonResponse(unlessRefused(await conversations.switchBranch(id, messageId)));
	} catch (e) {
		return errorResponse(e);
	}
};
