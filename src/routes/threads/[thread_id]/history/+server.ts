import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { historyQuery, parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { HistorySchema, parseProtocolBody } from '$lib/server/agent-protocol/request-schemas';

export const POST: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const body = parseProtocolBody(HistorySchema, await readJsonBody(request));
		return jsonResponse(unlessRefused(await runtime().agentProtocol.states.history(threadId, historyQuery(body))));
	} catch (e) {
		return errorResponse(e);
	}
};
