import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseRunCreate } from '$lib/server/agent-protocol/run-create';

export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const body = parseRunCreate(await readJsonBody(request));
		const { result, headers } = await runtime().protocolRuns.createAndWait(threadId, body, request.signal);
		return jsonResponse(result, 200, headers);
	} catch (e) {
		return errorResponse(e);
	}
};
