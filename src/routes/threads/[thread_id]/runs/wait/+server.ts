import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseRunRequest } from '$lib/server/agent-protocol/run-create';

export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const rt = runtime();
		const body = parseRunRequest(await readJsonBody(request), rt.settings.MAX_MESSAGE_CHARS, 'on-thread');
		const { result, headers } = unlessRefused(await rt.protocolRuns.createAndWait(threadId, body, request.signal));
		return jsonResponse(result, 200, headers);
	} catch (e) {
		return errorResponse(e, request);
	}
};
