import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';

/** The tools a person chose to always allow ("Always allow" on an approval card). */
export const GET: RequestHandler = async () => {
	try {
		return jsonResponse({ allowed: await runtime().storage.allowedTools.list() });
	} catch (e) {
		return errorResponse(e);
	}
};
