import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse } from '$lib/server/http/api-error';
import { parseMcpServerParam } from '$lib/server/http/mcp-server-param';
import { oauthCallbackUrl } from '$lib/server/http/oauth-callback-url';
import { unlessRefused } from '$lib/server/http/run-refusal-error';

/** Opened in the browser (the sidebar's "Sign in to …"): sends it on to the server's authorization server. */
export const GET: RequestHandler = async ({ params, url }) => {
	try {
		const server = parseMcpServerParam(params.server);
		const rt = runtime();
		const { authorization } = unlessRefused(await rt.mcpSignIn.begin(server, oauthCallbackUrl(server, rt.settings.PUBLIC_ORIGIN, url)));
		return new Response(null, { status: 303, headers: { Location: authorization.href, 'Cache-Control': 'no-store' } });
	} catch (e) {
		return errorResponse(e);
	}
};
