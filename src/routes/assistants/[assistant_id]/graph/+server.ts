import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireAssistant } from '$lib/server/agent-protocol/protocol-request';

export const GET: RequestHandler = async ({ params }) => {
	try {
		requireAssistant(params.assistant_id);
		return jsonResponse(await runtime().agentProtocol.graph());
	} catch (e) {
		return errorResponse(e);
	}
};
