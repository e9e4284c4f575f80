import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { parseThreadId, requireThread, stateAt } from '$lib/server/agent-protocol/protocol-request';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const { agentProtocol, storage } = runtime();
		await requireThread(storage.threads, threadId);
		return jsonResponse(await stateAt(agentProtocol.states, threadId, params.checkpoint_id));
	} catch (e) {
		return errorResponse(e);
	}
};
