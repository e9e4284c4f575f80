import type { RequestHandler } from './$types';
import { errorResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { refusalResponse } from '$lib/server/http/request-guard';
import { parseSessionRequest } from '$lib/server/http/session-request';

/** The page's token prompt posts here once; a right token comes back as the session cookie. */
export const POST: RequestHandler = async ({ request, locals }) => {
	try {
		const result = locals.signIn(parseSessionRequest(await readJsonBody(request, 8 * 1024)));
		if ('code' in result) return refusalResponse(result);
		return new Response(null, { status: 204, headers: { 'Set-Cookie': result.setCookie, 'Cache-Control': 'no-store' } });
	} catch (e) {
		return errorResponse(e);
	}
};
