import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse } from '$lib/server/http/api-error';

// Prometheus text format, behind the guard of every API route (the token, the Host allow-list).
export const GET: RequestHandler = async () => {
	try {
		const { metrics } = runtime().telemetry;
		return new Response(await metrics.exposition(), { headers: { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' } });
	} catch (e) {
		return errorResponse(e);
	}
};
