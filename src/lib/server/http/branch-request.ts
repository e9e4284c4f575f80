import { z } from 'zod';
import { MessageIdSchema } from '../../protocol';
import { ApiError } from '../errors';

const BranchRequestSchema = z.strictObject({ messageId: MessageIdSchema });

/** POST /api/conversations/:id/branch's body. */
export function parseBranchRequest(body: unknown): { messageId: string } {
	const parsed = BranchRequestSchema.safeParse(body);
	if (!parsed.success) throw new ApiError('BAD_REQUEST', 'The body must be {"messageId": "<id of a message>"}');
	return parsed.data;
}
