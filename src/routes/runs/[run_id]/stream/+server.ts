import type { RequestHandler } from './$types';
import { errorResponse } from '$lib/server/http/api-error';
import { notImplemented } from '$lib/server/agent-protocol/protocol-request';

/** Every run Sophos streams has a thread: GET /threads/{thread_id}/runs/{run_id}/stream joins it. */
export const GET: RequestHandler = () => errorResponse(notImplemented('GET /runs/{run_id}/stream (use GET /threads/{thread_id}/runs/{run_id}/stream)'));
