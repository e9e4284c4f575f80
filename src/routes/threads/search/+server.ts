import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { refuseUnsupported } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody, ThreadSearchSchema } from '$lib/server/agent-protocol/request-schemas';

export const POST: RequestHandler = async ({ request }) => {
	try {
		const query = parseProtocolBody(ThreadSearchSchema, await readJsonBody(request));
		refuseUnsupported(query, ['values', 'extract'], 'POST /threads/search');
		return jsonResponse(await runtime().agentProtocol.threads.search(query));
	} catch (e) {
		return errorResponse(e);
	}
};
