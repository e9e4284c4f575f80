import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { jsonResponse } from '$lib/server/http/api-error';

export const GET: RequestHandler = async () => {
	const readiness = await runtime().readiness();
	return jsonResponse(readiness, readiness.status === 'ok' ? 200 : 503);
};
