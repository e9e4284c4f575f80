import { z } from 'zod';
import { DecisionSchema } from '../../protocol';
import { ApiError } from '../errors';
import type { BranchRequest, StartRequest } from '../runs/start-request';
import { parseModelId } from '../models/model-id';
import { MessageIdSchema } from './branch-request';
import { parseUuid } from './uuid';

/** More calls than one step may hold (tools/tool-step.ts) is never a real submission. */
const MAX_DECISIONS = 100;
/** Longest model id accepted: far past any real name, short enough to quote back in an error. */
const MODEL_ID_MAX = 256;

export const ChatRequestSchema = z.strictObject({
	message: z.string().optional(),
	conversation: z.string().nullable().optional(),
	resume: z.boolean().optional(),
	cancel: z.boolean().optional(),
	ifBusy: z.enum(['reject', 'enqueue', 'interrupt']).optional(),
	/** Decides every call a waiting conversation paused on, and continues it. */
	decisions: z.array(DecisionSchema).min(1).max(MAX_DECISIONS).optional(),
	editOf: MessageIdSchema.optional(),
	regenerate: MessageIdSchema.optional(),
	model: z
		.string()
		.max(MODEL_ID_MAX)
		.refine((v) => parseModelId(v) !== null, 'expected <provider>/<model>, an id from GET /api/models')
		.optional()
});

export type ChatRequest = StartRequest | { kind: 'cancel'; conversation: string };

/** POST /api/chat's body, checked in the reference's order, as a typed request. */
export function parseChatRequest(body: unknown, maxMessageChars: number): ChatRequest {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		throw new ApiError('BAD_REQUEST', 'Request body must be a JSON object');
	}
	const parsed = ChatRequestSchema.safeParse(body);
	if (!parsed.success) {
		const issue = parsed.error.issues[0]!;
		const field = issue.path.join('.') || (issue as { keys?: string[] }).keys?.join(', ') || 'body';
		throw new ApiError('BAD_REQUEST', `Invalid field "${field}": ${issue.message}`);
	}
	const { message = '', conversation, resume, cancel, ifBusy, decisions, editOf, regenerate, model } = parsed.data;
	const choice = model === undefined ? {} : { model };
	if (decisions) {
		if (
			parsed.data.message !== undefined ||
			resume ||
			cancel ||
			ifBusy ||
			editOf !== undefined ||
			regenerate !== undefined ||
			model !== undefined
		) {
			throw new ApiError('BAD_REQUEST', '"decisions" goes with "conversation" alone');
		}
		const id = parseUuid(conversation);
		if (conversation === undefined || conversation === null) {
			throw new ApiError('BAD_REQUEST', 'A conversation is required to decide');
		}
		if (!id) throw new ApiError('BAD_REQUEST', 'Invalid Conversation ID');
		return { kind: 'decide', conversation: id, decisions };
	}
	if (cancel) {
		if (model !== undefined) throw new ApiError('BAD_REQUEST', 'A model is chosen with a message or a resume, not a cancel');
		const id = parseUuid(conversation);
		if (conversation === undefined || conversation === null) {
			throw new ApiError('BAD_REQUEST', 'A conversation is required to cancel');
		}
		if (!id) throw new ApiError('BAD_REQUEST', 'Invalid Conversation ID');
		return { kind: 'cancel', conversation: id };
	}
	if (editOf !== undefined || regenerate !== undefined) {
		return { ...parseBranchStart({ message, conversation, resume, ifBusy, editOf, regenerate }, maxMessageChars), ...choice };
	}
	const text = checkedText(message, !resume, maxMessageChars);
	if (conversation === undefined || conversation === null) {
		if (resume) throw new ApiError('BAD_REQUEST', 'A conversation is required to resume');
		return { kind: 'message', conversation: null, message: text, ...(ifBusy ? { ifBusy } : {}), ...choice };
	}
	const id = parseUuid(conversation);
	if (!id) throw new ApiError('BAD_REQUEST', 'Invalid Conversation ID');
	return resume
		? { kind: 'resume', conversation: id, ...choice }
		: { kind: 'message', conversation: id, message: text, ...(ifBusy ? { ifBusy } : {}), ...choice };
}

function checkedText(message: string, required: boolean, maxMessageChars: number): string {
	const text = message.trim();
	if (required && !text) throw new ApiError('BAD_REQUEST', 'Message is required');
	if (text.length > maxMessageChars) {
		throw new ApiError('MESSAGE_TOO_LARGE', `Message must be at most ${maxMessageChars} characters`);
	}
	return text;
}

/** `editOf` (with the new `message`) or `regenerate` (alone): a run that starts a new branch. */
function parseBranchStart(
	body: Pick<z.infer<typeof ChatRequestSchema>, 'message' | 'conversation' | 'resume' | 'ifBusy' | 'editOf' | 'regenerate'>,
	maxMessageChars: number
): BranchRequest {
	const { editOf, regenerate, resume, ifBusy } = body;
	if (editOf !== undefined && regenerate !== undefined) throw new ApiError('BAD_REQUEST', 'Give editOf or regenerate, not both');
	if (resume) throw new ApiError('BAD_REQUEST', 'A resume cannot edit or regenerate');
	if (body.conversation === undefined || body.conversation === null) {
		throw new ApiError('BAD_REQUEST', `A conversation is required to ${editOf !== undefined ? 'edit' : 'regenerate'}`);
	}
	const conversation = parseUuid(body.conversation);
	if (!conversation) throw new ApiError('BAD_REQUEST', 'Invalid Conversation ID');
	const busy = ifBusy ? { ifBusy } : {};
	if (regenerate !== undefined) {
		if ((body.message ?? '').trim()) throw new ApiError('BAD_REQUEST', 'A regenerate takes no message');
		return { kind: 'regenerate', conversation, messageId: regenerate, ...busy };
	}
	return { kind: 'edit', conversation, editOf: editOf!, message: checkedText(body.message ?? '', true, maxMessageChars), ...busy };
}
