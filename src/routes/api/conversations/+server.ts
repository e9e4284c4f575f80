import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { parseListLimit } from '$lib/server/http/list-query';

export const GET: RequestHandler = async ({ url }) => {
	try {
		return jsonResponse(await runtime().storage.conversations.firstPage(parseListLimit(url.searchParams)));
	} catch (e) {
		return errorResponse(e);
	}
};
