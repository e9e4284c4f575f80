import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseRunCreate } from '$lib/server/agent-protocol/run-create';

export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const body = parseRunCreate(await readJsonBody(request));
		return await runtime().protocolRuns.createAndStream(threadId, body, request.signal);
	} catch (e) {
		return errorResponse(e);
	}
};
