import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseThreadId, refuseUnsupported } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody, ThreadPatchSchema } from '$lib/server/agent-protocol/request-schemas';

export const GET: RequestHandler = async ({ params }) => {
	try {
		return jsonResponse(unlessRefused(await runtime().agentProtocol.threads.get(parseThreadId(params.thread_id))));
	} catch (e) {
		return errorResponse(e);
	}
};

export const PATCH: RequestHandler = async ({ params, request }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const body = parseProtocolBody(ThreadPatchSchema, await readJsonBody(request));
		refuseUnsupported(body, ['ttl'], 'PATCH /threads/{thread_id}');
		return jsonResponse(unlessRefused(await runtime().agentProtocol.threads.patch(threadId, body)));
	} catch (e) {
		return errorResponse(e);
	}
};

export const DELETE: RequestHandler = async ({ params }) => {
	try {
		unlessRefused(await runtime().agentProtocol.threads.delete(parseThreadId(params.thread_id)));
		return new Response(null, { status: 204 });
	} catch (e) {
		return errorResponse(e);
	}
};
