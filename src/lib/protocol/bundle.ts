/**
 * Pure. The conversation bundle: one JSON document holding everything needed to rebuild a
 * conversation on another Sophos, on either engine (GET /api/conversations/:id/export?format=bundle,
 * POST /api/conversations/import). Versioned: a reader refuses a formatVersion above its own.
 * Field by field in README "Conversation bundles".
 */
import { z } from './zod';
import { RunStatusSchema, RunTriggerSchema } from './run-status';

export const BUNDLE_FORMAT = 'sophos-conversation';
/** The version this release writes and the newest it reads. */
export const BUNDLE_FORMAT_VERSION = 1;

const Timestamp = z.iso.datetime();
const JsonSchema = z.json();
/** A JSON value, as the checkpoint serializer writes one. */
export type BundleJson = z.infer<typeof JsonSchema>;
const Id = z.string().min(1).max(200);

/** What a reader looks at first, so a newer bundle is refused as newer, not as malformed. */
export const BundleHeaderSchema = z.object({
	format: z.literal(BUNDLE_FORMAT),
	formatVersion: z.number().int().positive()
});

/** A checkpoint channel's value: a JSON value as the checkpoint serializer writes it, or an array given as indices into `items`. */
export const BundleValueSchema = z.union([
	z.strictObject({ value: JsonSchema }),
	z.strictObject({ items: z.array(z.number().int().nonnegative()) })
]);
export type BundleValue = z.infer<typeof BundleValueSchema>;

export const BundleCheckpointSchema = z.strictObject({
	/** The checkpoint namespace ('' for the conversation's own graph). */
	ns: z.string().max(500),
	id: Id,
	/** The checkpoint it was written after; null for the thread's first. */
	parentId: Id.nullable(),
	/** The checkpoint without its id and channel values (v, ts, channel_versions, versions_seen). */
	checkpoint: z.record(z.string(), JsonSchema),
	metadata: z.record(z.string(), JsonSchema),
	/** Channel name → its value. */
	values: z.record(z.string(), BundleValueSchema),
	/** Pending writes of the checkpoint's tasks, in the order they read back. */
	writes: z.array(z.strictObject({ taskId: Id, channel: z.string().max(500), value: BundleValueSchema }))
});
export type BundleCheckpoint = z.infer<typeof BundleCheckpointSchema>;

export const BundleRunSchema = z.strictObject({
	id: Id,
	/** Never `running`: a conversation is exported between runs. */
	status: RunStatusSchema.exclude(['running']),
	trigger: RunTriggerSchema,
	input: z.string().nullable(),
	error: z.strictObject({ code: z.string().max(100), message: z.string() }).nullable(),
	startedAt: Timestamp,
	finishedAt: Timestamp.nullable()
});
export type BundleRun = z.infer<typeof BundleRunSchema>;

/** One tool call of the journal with its recorded outcome: what a regenerate reuses instead of calling again. */
export const BundleJournalEntrySchema = z.strictObject({
	toolCallId: Id,
	runId: Id,
	step: z.number().int().nonnegative(),
	tool: z.string().max(500),
	argsHash: z.string().max(200),
	callHash: z.string().max(200).nullable(),
	idempotencyKey: z.string().max(1000),
	messageId: z.string().max(200).nullable(),
	attempts: z.number().int().positive(),
	outcome: z.enum(['success', 'error', 'cancelled']).nullable(),
	result: z.string().nullable(),
	intentAt: Timestamp,
	outcomeAt: Timestamp.nullable()
});
export type BundleJournalEntry = z.infer<typeof BundleJournalEntrySchema>;

/** A question asked about a tool call before it ran, and a person's decision if made. */
export const BundleApprovalSchema = z.strictObject({
	toolCallId: Id,
	attempt: z.number().int().nonnegative(),
	runId: Id,
	tool: z.string().max(500),
	args: z.string(),
	reasonKind: z.enum(['policy', 'composed-url', 'uncertain']),
	reason: z.string(),
	requestedAt: Timestamp,
	expiresAt: Timestamp,
	decision: z.enum(['approve', 'deny', 'edit']).nullable(),
	decidedArgs: z.string().nullable(),
	decisionReason: z.string().nullable(),
	decidedAt: Timestamp.nullable()
});
export type BundleApproval = z.infer<typeof BundleApprovalSchema>;

export const BundleConversationSchema = z.strictObject({
	id: z.uuid(),
	title: z.string().max(1000),
	createdAt: Timestamp,
	updatedAt: Timestamp,
	messageCount: z.number().int().nonnegative(),
	/** `<provider>/<model>`; null: DEFAULT_MODEL. */
	model: z.string().max(500).nullable()
});
export type BundleConversation = z.infer<typeof BundleConversationSchema>;

export const BundleBranchSchema = z.strictObject({
	/** The active branch's head checkpoint. */
	head: Id,
	/** The newest run when the branch was last switched. */
	switchedAfterRun: Id.nullable()
});
export type BundleBranch = z.infer<typeof BundleBranchSchema>;

export const ConversationBundleSchema = BundleHeaderSchema.extend({
	formatVersion: z.literal(BUNDLE_FORMAT_VERSION),
	exportedAt: Timestamp,
	conversation: BundleConversationSchema,
	/** Null for a conversation that never branched: its latest checkpoint is its head. */
	branch: BundleBranchSchema.nullable(),
	/** Oldest first. */
	runs: z.array(BundleRunSchema),
	journal: z.array(BundleJournalEntrySchema),
	approvals: z.array(BundleApprovalSchema),
	/** Array elements (messages, mostly), each once however many checkpoints hold it. */
	items: z.array(JsonSchema),
	/** Every checkpoint of every branch, parents before children. */
	checkpoints: z.array(BundleCheckpointSchema)
}).strict();
export type ConversationBundle = z.infer<typeof ConversationBundleSchema>;

/** POST /api/conversations/import's answer (201). */
export const ImportResultSchema = z.object({ conversation: z.string(), checkpoints: z.number().int().nonnegative() });
export type ImportResult = z.infer<typeof ImportResultSchema>;
