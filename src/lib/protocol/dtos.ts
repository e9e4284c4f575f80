/**
 * Pure. The JSON bodies of the API, once: the server builds these types and the contract tests
 * parse every response with these schemas, so the two cannot drift apart.
 */
import { z } from './zod';
import { PendingApprovalSchema } from './events';
import { PendingElicitationSchema } from './elicitation';
import { RunStatusSchema, RunTriggerSchema } from './run-status';

const WireErrorSchema = z.object({ code: z.string(), message: z.string() });

export const ToolCallDtoSchema = z.object({
	id: z.string().optional(),
	name: z.string(),
	args: z.record(z.string(), z.unknown())
});
export type ToolCallDto = z.infer<typeof ToolCallDtoSchema>;

/**
 * What one model call used, from the provider's own figures (Ollama's eval counts and durations;
 * an OpenAI-compatible server's usage chunk, timed by Sophos). Every figure is optional: a server
 * that sends no usage chunk still has its timings.
 */
export const ModelUsageSchema = z.object({
	inputTokens: z.number().int().nonnegative().optional(),
	outputTokens: z.number().int().nonnegative().optional(),
	/** From the request to the first token of reasoning, text or a tool call. */
	firstTokenMs: z.number().nonnegative().optional(),
	durationMs: z.number().nonnegative().optional(),
	/** Output tokens over the time spent generating them. */
	tokensPerSecond: z.number().nonnegative().optional()
});
export type ModelUsage = z.infer<typeof ModelUsageSchema>;

/** A model is named `<provider>/<model>`, e.g. `ollama/qwen3`, `openai/qwen3-8b`, `vllm/Qwen/Qwen3-8B`. */
const ModelIdSchema = z.string();

/**
 * Where the branches of a conversation hold different messages at this position: the messages
 * there, oldest first (`ids`), and which of them this one is (`index`, from 0, of `count`).
 */
export const VersionsSchema = z.object({
	index: z.number().int().nonnegative(),
	count: z.number().int().min(2),
	ids: z.array(z.string())
});
export type Versions = z.infer<typeof VersionsSchema>;

/**
 * A tool result taken over from another branch, where the same call (same tool, canonically equal
 * arguments) already took effect: that call's id and the assistant message that made it (a
 * `messageId` for POST /api/conversations/:id/branch; absent for calls journaled before branches).
 */
export const ReusedFromSchema = z.object({ toolCallId: z.string(), messageId: z.string().optional() });
export type ReusedFrom = z.infer<typeof ReusedFromSchema>;

export const MessageDtoSchema = z.object({
	id: z.string(),
	role: z.enum(['user', 'assistant', 'tool']),
	content: z.string(),
	reasoning: z.string().optional(),
	toolCalls: z.array(ToolCallDtoSchema).optional(),
	/** The model that gave an assistant message, and what its call used (absent on older answers). */
	model: ModelIdSchema.optional(),
	usage: ModelUsageSchema.optional(),
	/** `length`: the answer stopped at MAX_ANSWER_TOKENS or was cut at MAX_ANSWER_CHARS. */
	finishReason: z.literal('length').optional(),
	name: z.string().optional(),
	toolCallId: z.string().optional(),
	status: z.enum(['success', 'error']).optional(),
	reusedFrom: ReusedFromSchema.optional(),
	versions: VersionsSchema.optional()
});
export type MessageDto = z.infer<typeof MessageDtoSchema>;

export const ConversationSummarySchema = z.object({
	id: z.string(),
	title: z.string(),
	createdAt: z.string(),
	updatedAt: z.string(),
	messageCount: z.number().int(),
	/** The model its runs answer with; null for a conversation from before models were chosen: DEFAULT_MODEL. */
	model: ModelIdSchema.nullable(),
	/** The latest run's status; null before the first run. */
	status: RunStatusSchema.nullable(),
	error: WireErrorSchema.optional()
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

export const ConversationPageSchema = z.object({
	conversations: z.array(ConversationSummarySchema),
	hasMore: z.boolean()
});
export type ConversationPage = z.infer<typeof ConversationPageSchema>;

export const QueuedMessageSchema = z.object({
	id: z.string(),
	/** Empty for a queued regenerate. */
	message: z.string(),
	createdAt: z.string(),
	/** A queued edit: the user message it replaces. */
	editOf: z.string().optional(),
	/** A queued regenerate: the assistant message it replaces. */
	regenerate: z.string().optional(),
	/** The model it was sent with, chosen when it starts. */
	model: ModelIdSchema.optional()
});
export type QueuedMessage = z.infer<typeof QueuedMessageSchema>;

export const ConversationDetailSchema = z.object({
	conversation: ConversationSummarySchema,
	messages: z.array(MessageDtoSchema),
	resumable: z.boolean(),
	queue: z.array(QueuedMessageSchema),
	/** The calls the conversation waits on a decision for (status `waiting`); empty otherwise. */
	approvals: z.array(PendingApprovalSchema),
	/** The questions its running tool call waits on an answer to (MCP elicitation), held by the instance running it. */
	elicitations: z.array(PendingElicitationSchema)
});
export type ConversationDetail = z.infer<typeof ConversationDetailSchema>;

/** What a run's model calls used in all: each answer counted once, for the run whose call gave it. */
export const RunUsageSchema = z.object({
	calls: z.number().int().nonnegative(),
	inputTokens: z.number().int().nonnegative(),
	outputTokens: z.number().int().nonnegative(),
	durationMs: z.number().nonnegative()
});
export type RunUsage = z.infer<typeof RunUsageSchema>;

export const RunRecordSchema = z.object({
	id: z.string(),
	status: RunStatusSchema,
	trigger: RunTriggerSchema,
	/** The user message of a message run. */
	input: z.string().nullable(),
	error: WireErrorSchema.nullable(),
	startedAt: z.string(),
	finishedAt: z.string().nullable(),
	/** In GET /api/conversations/:id/runs, always; other answers that name a run leave it out. */
	usage: RunUsageSchema.optional()
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** POST /api/chat: a run started (200), or the message queued behind the active run (202). */
export const StartResultSchema = z.union([
	z.object({ conversation: z.string(), run: z.string() }),
	z.object({ conversation: z.string(), queued: z.string() })
]);
export type StartResult = z.infer<typeof StartResultSchema>;

/** A person's decision on one pending call (POST /api/chat `decisions`). */
export const DecisionSchema = z.strictObject({
	toolCallId: z.string().min(1).max(200),
	action: z.enum(['approve', 'deny', 'edit']),
	/** With `edit`: the arguments the call runs with instead of the model's. */
	args: z.record(z.string(), z.unknown()).optional(),
	/** With `deny`: what the model is told; kept in the journal either way. */
	reason: z.string().max(2_000).optional(),
	/** With `approve` or `edit`: always allow this tool from now on (GET /api/allowed-tools). */
	remember: z.boolean().optional()
});
export type Decision = z.infer<typeof DecisionSchema>;

export const AllowedToolSchema = z.object({ tool: z.string(), since: z.string() });
export type AllowedTool = z.infer<typeof AllowedToolSchema>;

/** A run's one recorded outcome, as the cancel endpoints answer it. */
export const CancelResultSchema = z.object({
	conversation: z.string(),
	run: z.string().nullable(),
	status: RunStatusSchema.nullable()
});
export type CancelResult = z.infer<typeof CancelResultSchema>;

export const CheckSchema = z.object({
	status: z.enum(['ok', 'error', 'starting']),
	message: z.string().optional()
});
export type Check = z.infer<typeof CheckSchema>;

/** What kind of server a provider speaks to; the page's advice for one that is down depends on it. */
export const ProviderKindSchema = z.enum(['ollama', 'openai']);
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

export const ProviderCheckSchema = CheckSchema.extend({ kind: ProviderKindSchema });
export type ProviderCheck = z.infer<typeof ProviderCheckSchema>;

/**
 * One MCP server: `sign-in` when it is a remote server that wants an OAuth sign-in, which a person
 * begins by opening `signIn` (a path on Sophos) in the browser.
 */
export const McpCheckSchema = z.object({
	status: z.enum(['ok', 'error', 'starting', 'sign-in']),
	message: z.string().optional(),
	tools: z.number().int(),
	signIn: z.string().optional(),
	/** Connected with an OAuth token, so the page offers to sign out of it. */
	oauth: z.boolean().optional()
});
export type McpCheck = z.infer<typeof McpCheckSchema>;

export const ReadinessSchema = z.object({
	status: z.enum(['ok', 'error']),
	message: z.string().optional(),
	/** The model new conversations answer with, which `checks.model` is about. */
	defaultModel: ModelIdSchema,
	checks: z.object({
		database: CheckSchema,
		model: CheckSchema,
		/** Each configured model provider: could its models be listed. */
		providers: z.record(z.string(), ProviderCheckSchema),
		mcp: z.record(z.string(), McpCheckSchema)
	})
});
export type Readiness = z.infer<typeof ReadinessSchema>;

/** GET /api/models: the models of every provider that answered, and how each provider is. */
export const ModelListSchema = z.object({
	default: ModelIdSchema,
	models: z.array(z.object({ id: ModelIdSchema, provider: z.string(), name: z.string() })),
	providers: z.array(
		z.object({ name: z.string(), kind: ProviderKindSchema, status: z.enum(['ok', 'error']), message: z.string().optional() })
	)
});
export type ModelList = z.infer<typeof ModelListSchema>;
