import { z } from 'zod';
import { expandVars, readJsonConfig } from '../config-file';

/**
 * `$CONFIG_DIR/mcp.json`: server name → connection. Parsed strictly, so a typo in a key is an error
 * that names it rather than a server silently started without it.
 */
/**
 * Overrides whether a call of a server's tools may be repeated after a crash left its outcome
 * unknown: `true`/`false` for every tool, or per tool name. Servers often declare this wrongly.
 */
const SafeToRepeatSchema = z.union([z.boolean(), z.record(z.string(), z.boolean())]).optional();

const ApprovalModeSchema = z.enum(['auto', 'ask', 'deny']);
/**
 * Whether a call of a server's tools runs at once (`auto`), waits for a person (`ask`) or is never
 * offered to the model (`deny`): one mode for every tool, or per tool name; unlisted tools follow
 * TOOL_APPROVAL (approvals/approval-policy.ts).
 */
const ApprovalSchema = z.union([ApprovalModeSchema, z.record(z.string(), ApprovalModeSchema)]).optional();

const StdioServerSchema = z
	.strictObject({
		type: z.literal('stdio').optional(),
		transport: z.literal('stdio').optional(),
		command: z.string().min(1),
		args: z.array(z.string()).default([]),
		env: z.record(z.string(), z.string()).optional(),
		cwd: z.string().optional(),
		safeToRepeat: SafeToRepeatSchema,
		approval: ApprovalSchema
	});

const HttpServerSchema = z
	.strictObject({
		type: z.enum(['http', 'sse']).optional(),
		transport: z.enum(['http', 'sse']).optional(),
		url: z.url({ protocol: /^https?$/ }),
		headers: z.record(z.string(), z.string()).optional(),
		safeToRepeat: SafeToRepeatSchema,
		approval: ApprovalSchema
	});

export const McpServerConfigSchema = z.union([StdioServerSchema, HttpServerSchema]);
export const McpConfigSchema = z.record(
	z.string().regex(/^[A-Za-z0-9_-]+$/, 'server names may hold letters, digits, _ and -'),
	McpServerConfigSchema
);

export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;
export type McpConfig = z.infer<typeof McpConfigSchema>;

export function isStdio(c: McpServerConfig): c is z.infer<typeof StdioServerSchema> {
	return 'command' in c;
}

/** `${NAME}` in args and env values is taken from the service's environment (unset → ""). */
export async function loadMcpConfig(
	file: string,
	vars: Record<string, string | undefined>
): Promise<McpConfig> {
	const config = await readJsonConfig(file, McpConfigSchema, 'MCP configuration');
	return Object.fromEntries(
		Object.entries(config).map(([name, server]) => [
			name,
			isStdio(server)
				? {
						...server,
						args: server.args.map((a) => expandVars(a, vars)),
						...(server.env
							? { env: Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, expandVars(v, vars)])) }
							: {})
					}
				: server
		])
	);
}
