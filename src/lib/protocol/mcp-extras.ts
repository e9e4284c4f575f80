/**
 * Pure. The bodies of MCP prompts and resources (GET /api/mcp/prompts, POST /api/mcp/prompts/<name>,
 * GET /api/mcp/resources, GET /api/mcp/resources/read) and a message's attached resources, shared
 * by the routes, which build them, and the page, which parses them.
 */
import { z } from './zod';

/** A name mcp.json may give a server: letters, digits, _ and -. */
export const McpServerNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'An MCP server name holds 1 to 128 letters, digits, _ and -');

/** Longest resource URI accepted: far past a real one, short enough to quote back in an error. */
const URI_MAX = 2_048;

/** A resource URI as MCP gives them (RFC 3986, any scheme: `file:///…`, `https://…`, `notes://…`). */
export const ResourceUriSchema = z
	.string()
	.min(1)
	.max(URI_MAX)
	.refine((v) => URL.canParse(v), 'expected an absolute URI, as GET /api/mcp/resources lists them');

/** One resource attached to a message: read from its server when the message is sent. */
export const AttachmentSchema = z.strictObject({ server: McpServerNameSchema, uri: ResourceUriSchema });
export type Attachment = z.infer<typeof AttachmentSchema>;

/** More than this many resources on one message is never a real submission. */
export const MAX_ATTACHMENTS = 8;

/** A server that could not be asked for its list now: down, starting, or waiting for a sign-in. */
export const UnavailableServerSchema = z.object({ server: z.string(), message: z.string() });
export type UnavailableServer = z.infer<typeof UnavailableServerSchema>;

export const McpPromptArgumentSchema = z.object({
	name: z.string(),
	description: z.string().optional(),
	required: z.boolean().optional()
});
export type McpPromptArgument = z.infer<typeof McpPromptArgumentSchema>;

/** One prompt, named `server__prompt` as tools are. */
export const McpPromptSchema = z.object({
	name: z.string(),
	server: z.string(),
	prompt: z.string(),
	title: z.string().optional(),
	description: z.string().optional(),
	arguments: z.array(McpPromptArgumentSchema)
});
export type McpPrompt = z.infer<typeof McpPromptSchema>;

export const PromptListSchema = z.object({ prompts: z.array(McpPromptSchema), unavailable: z.array(UnavailableServerSchema) });
export type PromptList = z.infer<typeof PromptListSchema>;

/** POST /api/mcp/prompts/<server__prompt>: the prompt's arguments, names to string values as MCP has them. */
export const PromptArgumentsBodySchema = z.strictObject({
	arguments: z.record(z.string().min(1).max(128), z.string().max(100_000)).optional()
});
export type PromptArgumentsBody = z.infer<typeof PromptArgumentsBodySchema>;

/** A prompt's messages as text: text parts kept, embedded text resources inlined, other parts named. */
export const PromptMessagesSchema = z.object({
	name: z.string(),
	description: z.string().optional(),
	messages: z.array(z.object({ role: z.enum(['user', 'assistant']), text: z.string() }))
});
export type PromptMessages = z.infer<typeof PromptMessagesSchema>;

export const McpResourceSchema = z.object({
	uri: z.string(),
	name: z.string(),
	title: z.string().optional(),
	description: z.string().optional(),
	mimeType: z.string().optional(),
	size: z.number().optional()
});
export type McpResource = z.infer<typeof McpResourceSchema>;

export const McpResourceTemplateSchema = z.object({
	uriTemplate: z.string(),
	name: z.string(),
	title: z.string().optional(),
	description: z.string().optional(),
	mimeType: z.string().optional()
});
export type McpResourceTemplate = z.infer<typeof McpResourceTemplateSchema>;

export const ResourceListSchema = z.object({
	servers: z.array(z.object({ server: z.string(), resources: z.array(McpResourceSchema), templates: z.array(McpResourceTemplateSchema) })),
	unavailable: z.array(UnavailableServerSchema)
});
export type ResourceList = z.infer<typeof ResourceListSchema>;

/** GET /api/mcp/resources/read: a text resource's contents (a resource may hold several). */
export const ResourceContentsSchema = z.object({
	server: z.string(),
	uri: z.string(),
	contents: z.array(z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string() }))
});
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;
