import type { RequestHandler } from './$types';
import { errorResponse } from '$lib/server/http/api-error';
import { notImplemented } from '$lib/server/agent-protocol/protocol-request';

export const fallback: RequestHandler = ({ request, url }) => errorResponse(notImplemented(`${request.method} ${url.pathname}`));
