import type { RequestHandler } from './$types';
import { errorResponse } from '$lib/server/http/api-error';
import { notImplemented } from '$lib/server/agent-protocol/protocol-request';

/** A background run needs a thread to be followed and joined by: POST /threads/{id}/runs. */
export const POST: RequestHandler = () => errorResponse(notImplemented('POST /runs (a background run without a thread; use POST /threads/{thread_id}/runs)'));
