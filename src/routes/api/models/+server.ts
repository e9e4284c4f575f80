import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { jsonResponse } from '$lib/server/http/api-error';

export const GET: RequestHandler = async () => jsonResponse(await runtime().models.list());
