import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { parseListLimit } from '$lib/server/http/list-query';

export const GET: RequestHandler = async ({ url }) => {
	try {
		const limit = parseListLimit(url.searchParams);
		const { conversations } = runtime().storage;
		return jsonResponse(limit === undefined ? { conversations: await conversations.list() } : await conversations.firstPage(limit));
	} catch (e) {
		return errorResponse(e);
	}
};
