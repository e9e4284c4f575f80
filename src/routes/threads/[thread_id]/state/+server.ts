import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { notImplemented, parseThreadId } from '$lib/server/agent-protocol/protocol-request';

export const GET: RequestHandler = async ({ params }) => {
	try {
		return jsonResponse(unlessRefused(await runtime().agentProtocol.states.state(parseThreadId(params.thread_id))));
	} catch (e) {
		return errorResponse(e);
	}
};

/**
 * Writing a thread's state by hand would put messages in the thread that no run made and no
 * journal knows of: Sophos edits through branches (a run with a checkpoint) instead.
 */
export const POST: RequestHandler = () => errorResponse(notImplemented('Updating a thread\'s state (POST /threads/{thread_id}/state)'));
export const PATCH: RequestHandler = () => errorResponse(notImplemented('Patching a thread\'s state metadata (PATCH /threads/{thread_id}/state)'));
