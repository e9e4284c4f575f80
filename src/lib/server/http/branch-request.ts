import { z } from 'zod';
import { ApiError } from '../errors';

/** A message id as the API gives it (user messages have UUIDs, others the model's or LangChain's ids). */
export const MessageIdSchema = z.string().min(1).max(200);

const BranchRequestSchema = z.strictObject({ messageId: MessageIdSchema });

/** POST /api/conversations/:id/branch's body. */
export function parseBranchRequest(body: unknown): { messageId: string } {
	const parsed = BranchRequestSchema.safeParse(body);
	if (!parsed.success) throw new ApiError('BAD_REQUEST', 'The body must be {"messageId": "<id of a message>"}');
	return parsed.data;
}
