import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody } from '$lib/server/agent-protocol/request-schemas';
import { parseRunCreate, RunListQuerySchema } from '$lib/server/agent-protocol/run-create';
import { runPaths } from '$lib/server/agent-protocol/protocol-runs';

/** A background run: answered at once with the run (pending when queued behind another). */
export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const body = parseRunCreate(await readJsonBody(request));
		const { run } = await runtime().protocolRuns.create(threadId, body);
		return jsonResponse(run, 200, { 'Content-Location': runPaths(run.thread_id, run.run_id)['Content-Location'] });
	} catch (e) {
		return errorResponse(e);
	}
};

export const GET: RequestHandler = async ({ params, url }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const query = parseProtocolBody(RunListQuerySchema, Object.fromEntries(url.searchParams));
		return jsonResponse(await runtime().protocolRuns.list(threadId, query.limit, query.offset, query.status ?? null));
	} catch (e) {
		return errorResponse(e);
	}
};
