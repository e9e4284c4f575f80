import { z } from 'zod';
import { ApiError } from '../errors';

export const SessionRequestSchema = z.strictObject({ token: z.string().min(1).max(4096) });

/** POST /api/session's body: `{token}` and nothing else. */
export function parseSessionRequest(body: unknown): string {
	const parsed = SessionRequestSchema.safeParse(body);
	if (!parsed.success) throw new ApiError('BAD_REQUEST', 'Request body must be {"token": "<SOPHOS_TOKEN>"}');
	return parsed.data.token;
}
