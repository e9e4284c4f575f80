import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';

export const GET: RequestHandler = () => {
	try {
		return jsonResponse({ conversations: runtime().conversations.list() });
	} catch (e) {
		return errorResponse(e);
	}
};
