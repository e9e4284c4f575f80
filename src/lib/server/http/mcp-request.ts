import { McpServerNameSchema, PromptArgumentsBodySchema, ResourceUriSchema } from '../../protocol';
import { z } from 'zod';
import { ApiError } from '../errors';

/** `server__prompt`: a server name (mcp-config.ts) and the server's own prompt name, printable, no controls. */
const PROMPT_NAME = /^[A-Za-z0-9_-]{1,128}__[^\p{Cc}]{1,256}$/u;

export function parsePromptName(value: string | undefined): string {
	if (!value || !PROMPT_NAME.test(value)) throw new ApiError('BAD_REQUEST', 'Invalid prompt name: expected server__prompt, as GET /api/mcp/prompts lists them');
	return value;
}

/** The body of POST /api/mcp/prompts/<name>: `{}` or `{arguments: {name: "value"}}`. */
export function parsePromptArguments(body: unknown): Record<string, string> {
	const parsed = PromptArgumentsBodySchema.safeParse(body);
	if (!parsed.success) throw new ApiError('BAD_REQUEST', `Invalid prompt arguments: ${firstIssue(parsed.error)}`);
	return parsed.data.arguments ?? {};
}

const ResourceQuerySchema = z.strictObject({ server: McpServerNameSchema, uri: ResourceUriSchema });

/** `?server=<name>&uri=<uri>`, each given once. */
export function parseResourceQuery(url: URL): { server: string; uri: string } {
	const keys = [...url.searchParams.keys()];
	if (new Set(keys).size !== keys.length) throw new ApiError('BAD_REQUEST', 'Give server and uri once each');
	const parsed = ResourceQuerySchema.safeParse(Object.fromEntries(url.searchParams));
	if (!parsed.success) throw new ApiError('BAD_REQUEST', `Invalid resource query: ${firstIssue(parsed.error)}`);
	return parsed.data;
}

function firstIssue(error: z.ZodError): string {
	const issue = error.issues[0]!;
	const where = issue.path.join('.') || (issue as { keys?: string[] }).keys?.join(', ');
	return where ? `"${where}": ${issue.message}` : issue.message;
}
