import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { parseResourceQuery } from '$lib/server/http/mcp-request';
import { unlessRefused } from '$lib/server/http/run-refusal-error';

/** `?server=<name>&uri=<uri>`: a text resource's contents. */
export const GET: RequestHandler = async ({ url }) => {
	try {
		const { server, uri } = parseResourceQuery(url);
		return jsonResponse(unlessRefused(await runtime().resources.read(server, uri)));
	} catch (e) {
		return errorResponse(e);
	}
};
