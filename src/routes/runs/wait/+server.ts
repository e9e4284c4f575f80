import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseRunRequest } from '$lib/server/agent-protocol/run-create';

/** A run without a thread: it starts a thread of its own, which stays (Content-Location names it). */
export const POST: RequestHandler = async ({ request }) => {
	try {
		const rt = runtime();
		const body = parseRunRequest(await readJsonBody(request), rt.settings.MAX_MESSAGE_CHARS, 'thread-less');
		const { result, headers } = unlessRefused(await rt.protocolRuns.createAndWait(null, body, request.signal));
		return jsonResponse(result, 200, headers);
	} catch (e) {
		return errorResponse(e, request);
	}
};
