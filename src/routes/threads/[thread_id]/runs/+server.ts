import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody } from '$lib/server/agent-protocol/request-schemas';
import { parseRunRequest, RunListQuerySchema } from '$lib/server/agent-protocol/run-create';
import { runPaths } from '$lib/server/agent-protocol/run-view';

/** A background run: answered at once with the run (pending when queued behind another). */
export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const rt = runtime();
		const body = parseRunRequest(await readJsonBody(request), rt.settings.MAX_MESSAGE_CHARS, 'on-thread');
		const { run } = unlessRefused(await rt.protocolRuns.create(threadId, body));
		return jsonResponse(run, 200, { 'Content-Location': runPaths(run.thread_id, run.run_id)['Content-Location'] });
	} catch (e) {
		return errorResponse(e);
	}
};

export const GET: RequestHandler = async ({ params, url }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const query = parseProtocolBody(RunListQuerySchema, Object.fromEntries(url.searchParams));
		return jsonResponse(unlessRefused(await runtime().protocolRuns.list(threadId, query.limit, query.offset, query.status ?? null)));
	} catch (e) {
		return errorResponse(e);
	}
};
