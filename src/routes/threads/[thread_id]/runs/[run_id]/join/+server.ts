import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseRunId } from '$lib/server/agent-protocol/run-create';

/** Waits for the run's end: the thread's values, or `{__error__}` for a run that failed. */
export const GET: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const runId = parseRunId(params.run_id);
		const { protocolRuns } = runtime();
		return jsonResponse(unlessRefused(await protocolRuns.join(threadId, runId, request.signal)));
	} catch (e) {
		return errorResponse(e, request);
	}
};
