import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { refuseUnsupported } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody, ThreadCreateSchema } from '$lib/server/agent-protocol/request-schemas';

export const POST: RequestHandler = async ({ request }) => {
	try {
		const body = parseProtocolBody(ThreadCreateSchema, await readJsonBody(request));
		refuseUnsupported(body, ['supersteps', 'ttl'], 'POST /threads');
		return jsonResponse(unlessRefused(await runtime().agentProtocol.threads.create(body)));
	} catch (e) {
		return errorResponse(e);
	}
};
