import type { RequestHandler } from './$types';
import { jsonResponse } from '$lib/server/http/api-error';

export const GET: RequestHandler = () => jsonResponse({ status: 'ok' });
