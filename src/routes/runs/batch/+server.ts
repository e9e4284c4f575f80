import type { RequestHandler } from './$types';
import { errorResponse } from '$lib/server/http/api-error';
import { notImplemented } from '$lib/server/agent-protocol/protocol-request';

export const POST: RequestHandler = () => errorResponse(notImplemented('POST /runs/batch'));
