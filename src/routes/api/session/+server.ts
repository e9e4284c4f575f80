import type { RequestHandler } from './$types';
import { errorResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { refusalResponse } from '$lib/server/http/request-guard';
import { parseSessionRequest } from '$lib/server/http/session-request';

function withCookies(setCookies: string[]): Response {
	const headers = new Headers({ 'Cache-Control': 'no-store' });
	for (const c of setCookies) headers.append('Set-Cookie', c);
	return new Response(null, { status: 204, headers });
}

/** The page's token prompt posts here once; a right token comes back as a new session's cookie. */
export const POST: RequestHandler = async ({ request, locals }) => {
	try {
		const result = await locals.signIn(parseSessionRequest(await readJsonBody(request, 8 * 1024)));
		if ('code' in result) return refusalResponse(result);
		return withCookies(result.setCookies);
	} catch (e) {
		return errorResponse(e);
	}
};

/** Logout: the session the cookie names ends here and on every instance, and the cookie is dropped. */
export const DELETE: RequestHandler = async ({ locals }) => {
	try {
		return withCookies((await locals.signOut()).setCookies);
	} catch (e) {
		return errorResponse(e);
	}
};
