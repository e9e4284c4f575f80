import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody, StateCheckpointSchema } from '$lib/server/agent-protocol/request-schemas';

export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const body = parseProtocolBody(StateCheckpointSchema, await readJsonBody(request));
		return jsonResponse(unlessRefused(await runtime().agentProtocol.states.state(threadId, body.checkpoint.checkpoint_id)));
	} catch (e) {
		return errorResponse(e);
	}
};
