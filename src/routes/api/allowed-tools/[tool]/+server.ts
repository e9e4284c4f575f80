import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse } from '$lib/server/http/api-error';
import { parseToolName } from '$lib/server/http/tool-name';
import { ApiError } from '$lib/server/errors';

/** Revokes "Always allow": the tool asks again from its next call. */
export const DELETE: RequestHandler = async ({ params }) => {
	try {
		const tool = parseToolName(params.tool);
		if (!(await runtime().storage.allowedTools.revoke(tool))) throw new ApiError('NOT_FOUND', `The tool "${tool}" is not always allowed`);
		return new Response(null, { status: 204 });
	} catch (e) {
		return errorResponse(e);
	}
};
