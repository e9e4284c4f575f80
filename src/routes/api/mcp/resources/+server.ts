import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';

/** Every MCP server's resources and resource templates, by server. */
export const GET: RequestHandler = async () => {
	try {
		return jsonResponse(await runtime().resources.list());
	} catch (e) {
		return errorResponse(e);
	}
};
