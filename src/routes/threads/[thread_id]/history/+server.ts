import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { historyQuery, parseThreadId, requireThread } from '$lib/server/agent-protocol/protocol-request';
import { HistorySchema, parseProtocolBody } from '$lib/server/agent-protocol/request-schemas';
import { ApiError } from '$lib/server/errors';

export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const body = parseProtocolBody(HistorySchema, await readJsonBody(request));
		const { agentProtocol, storage } = runtime();
		await requireThread(storage.threads, threadId);
		const history = await agentProtocol.states.history(threadId, historyQuery(body));
		if (!history) throw new ApiError('NOT_FOUND', `Checkpoint ${body.checkpoint?.checkpoint_id} not found in thread ${threadId}`);
		return jsonResponse(history);
	} catch (e) {
		return errorResponse(e);
	}
};
