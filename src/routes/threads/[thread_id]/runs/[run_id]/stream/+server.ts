import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse } from '$lib/server/http/api-error';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseThreadId } from '$lib/server/agent-protocol/protocol-request';
import { parseProtocolBody } from '$lib/server/agent-protocol/request-schemas';
import { joinStreamQueryOf, JoinStreamQuerySchema, parseRunId, protocolLastEventId, STREAM_MODES } from '$lib/server/agent-protocol/run-create';

/** Joins a run's stream after Last-Event-ID (`-1` or none: from its first event). */
export const GET: RequestHandler = async ({ params, request, url }) => {
	try {
		const threadId = parseThreadId(params.thread_id);
		const runId = parseRunId(params.run_id);
		const query = parseProtocolBody(JoinStreamQuerySchema, joinStreamQueryOf(url.searchParams));
		const modes = query.stream_mode === undefined ? [...STREAM_MODES] : Array.isArray(query.stream_mode) ? query.stream_mode : [query.stream_mode];
		const after = protocolLastEventId(request.headers.get('last-event-id'));
		const onDisconnect = query.cancel_on_disconnect ? 'cancel' : 'continue';
		return unlessRefused(await runtime().protocolRuns.stream(threadId, runId, modes, after, request.signal, onDisconnect));
	} catch (e) {
		return errorResponse(e);
	}
};
