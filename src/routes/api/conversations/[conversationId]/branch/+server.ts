import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { parseBranchRequest } from '$lib/server/http/branch-request';
import { readJsonBody } from '$lib/server/http/request-body';
import { requireConversation } from '$lib/server/http/conversation-param';

/** Makes the branch holding `messageId` active and answers with the conversation as it now reads. */
export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const rt = runtime();
		const { id } = await requireConversation(rt.storage.conversations, params.conversationId);
		const { messageId } = parseBranchRequest(await readJsonBody(request));
		await rt.switchBranch(id, messageId);
		return jsonResponse(await rt.detail((await rt.storage.conversations.get(id))!));
	} catch (e) {
		return errorResponse(e);
	}
};
