import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';

export const GET: RequestHandler = async ({ params }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		return jsonResponse(unlessRefused(await runtime().agentProtocol.states.state(threadId, params.checkpoint_id)));
	} catch (e) {
		return errorResponse(e);
	}
};
