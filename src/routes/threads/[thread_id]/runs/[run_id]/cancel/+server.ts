import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse } from '$lib/server/http/api-error';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody } from '$lib/server/agent-protocol/request-schemas';
import { CancelQuerySchema, parseRunId } from '$lib/server/agent-protocol/run-create';

/** 202 once asked; with `wait=1`, 204 once the run's outcome is recorded. */
export const POST: RequestHandler = async ({ params, url }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const runId = parseRunId(params.run_id);
		const query = parseProtocolBody(CancelQuerySchema, Object.fromEntries(url.searchParams));
		unlessRefused(await runtime().protocolRuns.cancel(threadId, runId, query.action, query.wait));
		return new Response(null, { status: query.wait ? 204 : 202 });
	} catch (e) {
		return errorResponse(e);
	}
};
