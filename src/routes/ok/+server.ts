import type { RequestHandler } from './$types';
import { jsonResponse } from '$lib/server/http/api-error';

/** The protocol's liveness probe, as /api/healthz is Sophos's own. */
export const GET: RequestHandler = () => jsonResponse({ ok: true });
