import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { searchAssistants } from '$lib/server/agent-protocol/assistant';
import { AssistantSearchSchema, parseProtocolBody } from '$lib/server/agent-protocol/request-schemas';

export const POST: RequestHandler = async ({ request }) => {
	try {
		const query = parseProtocolBody(AssistantSearchSchema, await readJsonBody(request));
		return jsonResponse(searchAssistants(runtime().agentProtocol.assistant, query));
	} catch (e) {
		return errorResponse(e);
	}
};
