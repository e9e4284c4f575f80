import type { RequestHandler } from './$types';
import { errorResponse } from '$lib/server/http/api-error';
import { notImplemented } from '$lib/server/agent-protocol/protocol-request';

/** Sophos's one assistant is its code (graph_id "agent"): no other is made over the protocol. */
export const POST: RequestHandler = () => errorResponse(notImplemented('Creating an assistant'));
