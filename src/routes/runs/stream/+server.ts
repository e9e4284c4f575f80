import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseRunCreate } from '$lib/server/agent-protocol/run-create';

/** A run without a thread: it starts a thread of its own, which stays (Content-Location names it). */
export const POST: RequestHandler = async ({ request }) => {
	try {
		const body = parseRunCreate(await readJsonBody(request));
		return await runtime().protocolRuns.createAndStream(null, body, request.signal);
	} catch (e) {
		return errorResponse(e);
	}
};
