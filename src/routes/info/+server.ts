import type { RequestHandler } from './$types';
import { jsonResponse } from '$lib/server/http/api-error';
import { PROTOCOL_INFO } from '$lib/server/agent-protocol/assistant';

/** What agent-chat-ui asks to check that the server is there and speaks the protocol. */
export const GET: RequestHandler = () => jsonResponse(PROTOCOL_INFO);
