import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parsePromptName, parsePromptArguments } from '$lib/server/http/mcp-request';
import { unlessRefused } from '$lib/server/http/run-refusal-error';

/** A prompt's messages for the arguments in the body (`{arguments: {name: value}}`). */
export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const name = parsePromptName(params.name);
		return jsonResponse(unlessRefused(await runtime().prompts.get(name, parsePromptArguments(await readJsonBody(request)))));
	} catch (e) {
		return errorResponse(e);
	}
};
