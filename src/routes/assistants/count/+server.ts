import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { searchAssistants } from '$lib/server/agent-protocol/assistant';
import { AssistantCountSchema, parseProtocolBody } from '$lib/server/agent-protocol/request-schemas';

export const POST: RequestHandler = async ({ request }) => {
	try {
		const query = parseProtocolBody(AssistantCountSchema, await readJsonBody(request));
		return jsonResponse(searchAssistants(runtime().agentProtocol.assistant, query).length);
	} catch (e) {
		return errorResponse(e);
	}
};
