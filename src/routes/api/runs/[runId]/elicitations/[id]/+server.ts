import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { elicitationRefusalError, parseElicitationAnswer } from '$lib/server/http/elicitation-answer';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseUuid } from '$lib/protocol/uuid';
import { ApiError } from '$lib/server/errors';

/** Answers a tool server's question (MCP elicitation) once, on whichever instance runs its call; the call goes on with the answer. */
export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const run = parseUuid(params.runId);
		const id = parseUuid(params.id);
		if (!run || !id) throw new ApiError('BAD_REQUEST', 'Invalid run or question id');
		const answer = parseElicitationAnswer(await readJsonBody(request));
		const { answerElicitation, storage } = runtime();
		if (!(await storage.runs.get(run))) throw new ApiError('NOT_FOUND', 'Run Not Found');
		const result = await answerElicitation(run, id, answer);
		if ('refused' in result) throw elicitationRefusalError(result);
		return jsonResponse({ run, id, action: result.action });
	} catch (e) {
		return errorResponse(e);
	}
};
