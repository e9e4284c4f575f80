import type { RequestHandler } from './$types';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { AGENT_SCHEMAS } from '$lib/server/agent-protocol/assistant';
import { requireAssistant } from '$lib/server/agent-protocol/protocol-request';

export const GET: RequestHandler = ({ params }) => {
	try {
		requireAssistant(params.assistant_id);
		return jsonResponse(AGENT_SCHEMAS);
	} catch (e) {
		return errorResponse(e);
	}
};
