import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { notImplemented, parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseRunId } from '$lib/server/agent-protocol/run-create';

export const GET: RequestHandler = async ({ params }) => {
	try {
		return jsonResponse(unlessRefused(await runtime().protocolRuns.get(parseThreadId(params.thread_id), parseRunId(params.run_id))));
	} catch (e) {
		return errorResponse(e);
	}
};

/** Runs are Sophos's ledger: they go with their thread (DELETE /threads/{thread_id}), never one by one. */
export const DELETE: RequestHandler = () => errorResponse(notImplemented('DELETE /threads/{thread_id}/runs/{run_id}'));
