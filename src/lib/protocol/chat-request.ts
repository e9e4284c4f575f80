/**
 * Pure. POST /api/chat's body: one discriminated union of what a body can ask for (a message, a
 * resume, decisions on waiting calls, an edit, a regenerate, a cancel), shared by the server, which
 * parses with it, and the page, which types its bodies with it.
 *
 * A body is read in two steps, the reference's order: every field's own form first
 * (`ChatFieldsSchema`, "Invalid field …"), then what the fields ask for together, in the variant
 * its intent picks (`chatIntent`). A new field goes into `ChatFieldsSchema` and into each variant
 * that takes it; a variant that does not list a field drops it.
 */
import { z } from './zod';
import { DecisionSchema } from './dtos';
import { AttachmentSchema, MAX_ATTACHMENTS } from './mcp-extras';
import { parseModelId } from './model-id';
import { parseUuid } from './uuid';
import type { ApiErrorCode } from './error-codes';

/** More calls than one step may hold (tools/tool-step.ts) is never a real submission. */
const MAX_DECISIONS = 100;
/** Longest model id accepted: far past any real name, short enough to quote back in an error. */
const MODEL_ID_MAX = 256;

/** A message id as the API gives it (user messages have UUIDs, others the model's or LangChain's ids). */
export const MessageIdSchema = z.string().min(1).max(200);

/** What a request does when its conversation already has a run (or the service is full). */
export const IfBusySchema = z.enum(['reject', 'enqueue', 'interrupt']);
export type IfBusy = z.infer<typeof IfBusySchema>;

export const ModelIdSchema = z
	.string()
	.max(MODEL_ID_MAX)
	.refine((v) => parseModelId(v) !== null, 'expected <provider>/<model>, an id from GET /api/models');

export const ChatFieldsSchema = z.strictObject({
	message: z.string().optional(),
	conversation: z.string().nullable().optional(),
	resume: z.boolean().optional(),
	cancel: z.boolean().optional(),
	ifBusy: IfBusySchema.optional(),
	/** Decides every call a waiting conversation paused on, and continues it. */
	decisions: z.array(DecisionSchema).min(1).max(MAX_DECISIONS).optional(),
	editOf: MessageIdSchema.optional(),
	regenerate: MessageIdSchema.optional(),
	model: ModelIdSchema.optional(),
	/** MCP resources read into a new message's text (GET /api/mcp/resources lists them). */
	attachments: z.array(AttachmentSchema).min(1).max(MAX_ATTACHMENTS).optional()
});
export type ChatFields = z.infer<typeof ChatFieldsSchema>;

export type ChatIntent = 'decide' | 'cancel' | 'edit' | 'regenerate' | 'resume' | 'message';

/** Which variant a body's fields are read as: the first of decisions, cancel, edit, regenerate, resume, present. */
export function chatIntent(fields: ChatFields): ChatIntent {
	if (fields.decisions !== undefined) return 'decide';
	if (fields.cancel) return 'cancel';
	if (fields.editOf !== undefined) return 'edit';
	if (fields.regenerate !== undefined) return 'regenerate';
	return fields.resume ? 'resume' : 'message';
}

export type ChatLimits = { maxMessageChars: number };

const DECISIONS_ALONE = '"decisions" goes with "conversation" alone';
const NO_BRANCH_RESUME = 'A resume cannot edit or regenerate';
const ATTACHMENTS_WITH_MESSAGE = 'Resources are attached to a new message only';

/** A key the variant refuses, with the one message that explains it. */
const absent = (message: string) => z.undefined({ error: message }).optional();
const notTrue = (message: string) => z.literal(false, { error: message }).optional();

const conversationTo = (intent: string) =>
	z.string({ error: `A conversation is required to ${intent}` }).transform((v, ctx) => {
		const id = parseUuid(v);
		if (id) return id;
		ctx.issues.push({ code: 'custom', message: 'Invalid Conversation ID', input: v });
		return z.NEVER;
	});

const optionalConversation = z
	.string()
	.nullable()
	.optional()
	.transform((v, ctx) => {
		if (v === undefined || v === null) return null;
		const id = parseUuid(v);
		if (id) return id;
		ctx.issues.push({ code: 'custom', message: 'Invalid Conversation ID', input: v });
		return z.NEVER;
	});

/** The trimmed text, refused when blank (if `required`) or longer than the limit; MESSAGE_TOO_LARGE carries its code. */
const text = (required: boolean, { maxMessageChars }: ChatLimits) =>
	z
		.string()
		.optional()
		.transform((v = '', ctx) => {
			const trimmed = v.trim();
			if (required && !trimmed) {
				ctx.issues.push({ code: 'custom', message: 'Message is required', input: v });
			} else if (trimmed.length > maxMessageChars) {
				ctx.issues.push({
					code: 'custom',
					message: `Message must be at most ${maxMessageChars} characters`,
					input: v,
					params: { code: 'MESSAGE_TOO_LARGE' }
				});
			}
			return trimmed;
		});

const busy = (ifBusy: IfBusy | undefined) => (ifBusy ? { ifBusy } : {});
const chosen = (model: string | undefined) => (model === undefined ? {} : { model });

/**
 * The variants, keyed by `intent`. Each lists its keys in the order they are checked, so the first
 * issue is the one the reference reports.
 */
function chatVariants(limits: ChatLimits) {
	const decide = z
		.object({
			intent: z.literal('decide'),
			message: absent(DECISIONS_ALONE),
			resume: notTrue(DECISIONS_ALONE),
			cancel: notTrue(DECISIONS_ALONE),
			ifBusy: absent(DECISIONS_ALONE),
			editOf: absent(DECISIONS_ALONE),
			regenerate: absent(DECISIONS_ALONE),
			model: absent(DECISIONS_ALONE),
			attachments: absent(DECISIONS_ALONE),
			conversation: conversationTo('decide'),
			decisions: ChatFieldsSchema.shape.decisions.unwrap()
		})
		.transform(({ conversation, decisions }) => ({ kind: 'decide' as const, conversation, decisions }));
	const cancel = z
		.object({
			intent: z.literal('cancel'),
			cancel: z.literal(true),
			model: absent('A model is chosen with a message or a resume, not a cancel'),
			attachments: absent(ATTACHMENTS_WITH_MESSAGE),
			conversation: conversationTo('cancel')
		})
		.transform(({ conversation }) => ({ kind: 'cancel' as const, conversation }));
	const edit = z
		.object({
			intent: z.literal('edit'),
			regenerate: absent('Give editOf or regenerate, not both'),
			resume: notTrue(NO_BRANCH_RESUME),
			attachments: absent(ATTACHMENTS_WITH_MESSAGE),
			conversation: conversationTo('edit'),
			editOf: MessageIdSchema,
			message: text(true, limits),
			ifBusy: IfBusySchema.optional(),
			model: ModelIdSchema.optional()
		})
		.transform(({ conversation, editOf, message, ifBusy, model }) => ({
			kind: 'edit' as const,
			conversation,
			editOf,
			message,
			...busy(ifBusy),
			...chosen(model)
		}));
	const regenerate = z
		.object({
			intent: z.literal('regenerate'),
			resume: notTrue(NO_BRANCH_RESUME),
			attachments: absent(ATTACHMENTS_WITH_MESSAGE),
			conversation: conversationTo('regenerate'),
			regenerate: MessageIdSchema,
			message: z
				.string()
				.optional()
				.refine((v) => !v?.trim(), 'A regenerate takes no message'),
			ifBusy: IfBusySchema.optional(),
			model: ModelIdSchema.optional()
		})
		.transform(({ conversation, regenerate: messageId, ifBusy, model }) => ({
			kind: 'regenerate' as const,
			conversation,
			messageId,
			...busy(ifBusy),
			...chosen(model)
		}));
	// As the reference does, a resume ignores the message it is sent with (its size still counts).
	const resume = z
		.object({
			intent: z.literal('resume'),
			resume: z.literal(true),
			attachments: absent(ATTACHMENTS_WITH_MESSAGE),
			message: text(false, limits),
			conversation: conversationTo('resume'),
			model: ModelIdSchema.optional()
		})
		.transform(({ conversation, model }) => ({ kind: 'resume' as const, conversation, ...chosen(model) }));
	const message = z
		.object({
			intent: z.literal('message'),
			message: text(true, limits),
			conversation: optionalConversation,
			ifBusy: IfBusySchema.optional(),
			model: ModelIdSchema.optional(),
			attachments: ChatFieldsSchema.shape.attachments
		})
		.transform(({ conversation, message, ifBusy, model, attachments }) => ({
			kind: 'message' as const,
			conversation,
			message,
			...busy(ifBusy),
			...chosen(model),
			...(attachments ? { attachments } : {})
		}));
	return z.discriminatedUnion('intent', [decide, cancel, edit, regenerate, resume, message]);
}

type ChatVariantsSchema = ReturnType<typeof chatVariants>;

/** What a body asks for, checked and normalised (trimmed text, canonical ids). */
export type ChatRequest = z.output<ChatVariantsSchema>;

type WithoutIntent<T> = T extends unknown ? Omit<T, 'intent'> : never;
/** A body as a client writes it, one shape per variant. */
export type ChatBody = WithoutIntent<z.input<ChatVariantsSchema>>;

export type ChatRequestRead =
	| { ok: true; request: ChatRequest }
	| { ok: false; code: Extract<ApiErrorCode, 'BAD_REQUEST' | 'MESSAGE_TOO_LARGE'>; message: string };

// The variants depend only on the limits, which are settings: build them once per limit.
const variantsByLimit = new Map<number, ChatVariantsSchema>();

/** A body as its request, or the refusal (code and message) the reference gives for it. */
export function readChatRequest(body: unknown, limits: ChatLimits): ChatRequestRead {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		return { ok: false, code: 'BAD_REQUEST', message: 'Request body must be a JSON object' };
	}
	const fields = ChatFieldsSchema.safeParse(body);
	if (!fields.success) {
		const issue = fields.error.issues[0]!;
		const field = issue.path.join('.') || (issue as { keys?: string[] }).keys?.join(', ') || 'body';
		return { ok: false, code: 'BAD_REQUEST', message: `Invalid field "${field}": ${issue.message}` };
	}
	let variants = variantsByLimit.get(limits.maxMessageChars);
	if (!variants) variantsByLimit.set(limits.maxMessageChars, (variants = chatVariants(limits)));
	const read = variants.safeParse({ ...fields.data, intent: chatIntent(fields.data) });
	if (read.success) return { ok: true, request: read.data };
	const issue = read.error.issues[0]!;
	const code = (issue as { params?: { code?: string } }).params?.code === 'MESSAGE_TOO_LARGE' ? 'MESSAGE_TOO_LARGE' : 'BAD_REQUEST';
	return { ok: false, code, message: issue.message };
}
