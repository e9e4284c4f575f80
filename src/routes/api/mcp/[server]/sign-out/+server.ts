import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { parseMcpServerParam } from '$lib/server/http/mcp-server-param';
import { unlessRefused } from '$lib/server/http/run-refusal-error';

/** Forgets the server's tokens on every instance; it needs sign-in again. */
export const POST: RequestHandler = async ({ params }) => {
	try {
		const server = parseMcpServerParam(params.server);
		return jsonResponse({ server, ...unlessRefused(await runtime().mcpSignIn.signOut(server)) });
	} catch (e) {
		return errorResponse(e);
	}
};
