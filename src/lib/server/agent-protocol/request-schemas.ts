/**
 * Pure. The request bodies of the LangGraph Agent Server protocol that Sophos accepts, as the SDK's
 * client sends them (snake_case; an option the caller left out is absent, null where the SDK sends
 * `?? null`). Fields the protocol has and Sophos does not do are refused with 501 by the routes
 * (protocol-request.ts refuseUnsupported), never silently ignored; unknown fields are refused by the strict
 * objects, so a misspelt option is a 422 naming it.
 */
import { z } from '../../protocol/zod';
import { ApiError } from '../errors';

export const MetadataSchema = z.record(z.string(), z.unknown());
export type Metadata = z.infer<typeof MetadataSchema>;

/** Thread ids are Sophos conversation ids: uuids, which is what the SDK's clients make. */
export const ThreadIdSchema = z.uuid().transform((id) => id.toLowerCase());

const LimitSchema = z.number().int().min(1).max(1000);
const OffsetSchema = z.number().int().min(0);
const SortOrderSchema = z.enum(['asc', 'desc']);

export const ThreadStatusFilterSchema = z.enum(['idle', 'busy', 'interrupted', 'error']);

export const ThreadCreateSchema = z.strictObject({
	thread_id: ThreadIdSchema.nullish(),
	metadata: MetadataSchema.nullish(),
	/** `raise` (the default): 409 THREAD_EXISTS; `do_nothing`: the existing thread, unchanged. */
	if_exists: z.enum(['raise', 'do_nothing']).nullish(),
	supersteps: z.unknown().optional(),
	ttl: z.unknown().optional()
});
export type ThreadCreate = z.infer<typeof ThreadCreateSchema>;

export const ThreadPatchSchema = z.strictObject({
	/** Merged into the thread's metadata, key by key, as the JS server does. */
	metadata: MetadataSchema.nullish(),
	ttl: z.unknown().optional()
});
export type ThreadPatch = z.infer<typeof ThreadPatchSchema>;

export const ThreadSortBySchema = z.enum(['thread_id', 'status', 'created_at', 'updated_at', 'state_updated_at']);
export type ThreadSortBy = z.infer<typeof ThreadSortBySchema>;

export const THREAD_FIELDS = [
	'thread_id',
	'created_at',
	'updated_at',
	'state_updated_at',
	'metadata',
	'status',
	'values',
	'interrupts'
] as const;

export const ThreadSearchSchema = z.strictObject({
	/** Containment: each key the filter names has that value in the thread's metadata. */
	metadata: MetadataSchema.nullish(),
	ids: z.array(ThreadIdSchema).max(1000).nullish(),
	status: ThreadStatusFilterSchema.nullish(),
	limit: LimitSchema.nullish(),
	offset: OffsetSchema.nullish(),
	sort_by: ThreadSortBySchema.nullish(),
	sort_order: SortOrderSchema.nullish(),
	select: z.array(z.enum(THREAD_FIELDS)).nullish(),
	values: z.unknown().optional(),
	extract: z.unknown().optional()
});
export type ThreadSearch = z.infer<typeof ThreadSearchSchema>;

export const ThreadCountSchema = z.strictObject({
	metadata: MetadataSchema.nullish(),
	status: ThreadStatusFilterSchema.nullish(),
	values: z.unknown().optional()
});
export type ThreadCount = z.infer<typeof ThreadCountSchema>;

/** A checkpoint as a client names one: only its id says anything, Sophos having one namespace. */
export const CheckpointRefSchema = z.object({
	checkpoint_id: z.string().min(1).max(200).nullish(),
	checkpoint_ns: z.literal('').nullish(),
	thread_id: z.string().nullish(),
	checkpoint_map: z.unknown().optional()
});
export type CheckpointRef = z.infer<typeof CheckpointRefSchema>;

export const StateCheckpointSchema = z.strictObject({
	checkpoint: CheckpointRefSchema,
	subgraphs: z.boolean().nullish(),
	select: z.unknown().optional()
});

export const HistorySchema = z.strictObject({
	limit: LimitSchema.nullish(),
	/** Only checkpoints older than this one: its id, the checkpoint, or a config naming it (the SDK's type). */
	before: z
		.union([z.string().min(1).max(200), z.strictObject({ configurable: CheckpointRefSchema }), CheckpointRefSchema])
		.nullish(),
	/** Containment on each checkpoint's metadata (`source`, `step`, …). */
	metadata: MetadataSchema.nullish(),
	/** Only this checkpoint and its ancestors: one branch's history. */
	checkpoint: CheckpointRefSchema.nullish(),
	select: z.unknown().optional()
});
export type History = z.infer<typeof HistorySchema>;

export const AssistantSearchSchema = z.strictObject({
	graph_id: z.string().nullish(),
	name: z.string().nullish(),
	metadata: MetadataSchema.nullish(),
	limit: LimitSchema.nullish(),
	offset: OffsetSchema.nullish(),
	sort_by: z.enum(['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at']).nullish(),
	sort_order: SortOrderSchema.nullish(),
	select: z.array(z.string()).nullish()
});
export type AssistantSearch = z.infer<typeof AssistantSearchSchema>;

export const AssistantCountSchema = z.strictObject({
	graph_id: z.string().nullish(),
	name: z.string().nullish(),
	metadata: MetadataSchema.nullish()
});

/**
 * Parses a protocol body with its schema: the typed body, or ApiError VALIDATION_FAILED (422)
 * naming the first field the schema refuses (an unknown key by its name).
 */
export function parseProtocolBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
	const parsed = schema.safeParse(body);
	if (parsed.success) return parsed.data;
	const issue = parsed.error.issues[0]!;
	const field = issue.path.join('.') || (issue as { keys?: string[] }).keys?.join(', ') || 'body';
	throw new ApiError('VALIDATION_FAILED', `Invalid field "${field}": ${issue.message}`);
}
