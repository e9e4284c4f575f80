import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { notImplemented, requireAssistant } from '$lib/server/agent-protocol/protocol-request';

export const GET: RequestHandler = ({ params }) => {
	try {
		requireAssistant(params.assistant_id);
		return jsonResponse(runtime().agentProtocol.assistant);
	} catch (e) {
		return errorResponse(e);
	}
};

/** Sophos's one assistant is its code: it is not edited or deleted over the protocol. */
export const PATCH: RequestHandler = () => errorResponse(notImplemented('Changing the assistant'));
export const DELETE: RequestHandler = () => errorResponse(notImplemented('Deleting the assistant'));
