import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';

/** Every MCP server's prompts, as `server__prompt` with their arguments. */
export const GET: RequestHandler = async () => {
	try {
		return jsonResponse(await runtime().prompts.list());
	} catch (e) {
		return errorResponse(e);
	}
};
