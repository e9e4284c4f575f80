import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { parseKeepIdQuery } from '$lib/server/http/list-query';
import { readJsonBody } from '$lib/server/http/request-body';
import { unlessRefused } from '$lib/server/http/run-refusal-error';

export const POST: RequestHandler = async ({ request, url }) => {
	try {
		const { bundles, settings } = runtime();
		const keepId = parseKeepIdQuery(url.searchParams);
		const bundle = await readJsonBody(request, settings.MAX_IMPORT_BYTES);
		return jsonResponse(unlessRefused(await bundles.import(bundle, keepId)), 201);
	} catch (e) {
		return errorResponse(e);
	}
};
