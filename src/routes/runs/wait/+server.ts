import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseRunCreate } from '$lib/server/agent-protocol/run-create';

/** A run without a thread: it starts a thread of its own, which stays (Content-Location names it). */
export const POST: RequestHandler = async ({ request }) => {
	try {
		const body = parseRunCreate(await readJsonBody(request));
		const { result, headers } = await runtime().protocolRuns.createAndWait(null, body, request.signal);
		return jsonResponse(result, 200, headers);
	} catch (e) {
		return errorResponse(e);
	}
};
