import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseThreadId, requireThread, stateAt } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody, StateCheckpointSchema } from '$lib/server/agent-protocol/request-schemas';

export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const body = parseProtocolBody(StateCheckpointSchema, await readJsonBody(request));
		const { agentProtocol, storage } = runtime();
		await requireThread(storage.threads, threadId);
		return jsonResponse(await stateAt(agentProtocol.states, threadId, body.checkpoint.checkpoint_id));
	} catch (e) {
		return errorResponse(e);
	}
};
