import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseUuid } from '$lib/protocol/uuid';
import { ApiError } from '$lib/server/errors';

/** Answers once the run has recorded its outcome: `cancelled`, or how it ended if it beat the cancel. */
export const POST: RequestHandler = async ({ params }) => {
	try {
		const id = parseUuid(params.runId);
		if (!id) throw new ApiError('BAD_REQUEST', 'Invalid Run ID');
		return jsonResponse(unlessRefused(await runtime().runService.cancel(id)));
	} catch (e) {
		return errorResponse(e);
	}
};
