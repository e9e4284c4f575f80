import { readChatRequest, type ChatRequest } from '../../protocol';
import { ApiError } from '../errors';

/** POST /api/chat's body as a typed request; a refusal is its ApiError (400, or 413 for a long message). */
export function parseChatRequest(body: unknown, maxMessageChars: number): ChatRequest {
	const read = readChatRequest(body, { maxMessageChars });
	if (!read.ok) throw new ApiError(read.code, read.message);
	return read.request;
}
