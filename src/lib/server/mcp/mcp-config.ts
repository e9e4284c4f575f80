import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

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

/** `${NAME}` in args and env values, from the service's environment (unset → ""). */
function expand(value: string, vars: Record<string, string | undefined>): string {
	return value.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => vars[name] ?? '');
}

export async function loadMcpConfig(
	file: string,
	vars: Record<string, string | undefined>
): Promise<McpConfig> {
	let raw: unknown;
	try {
		raw = JSON.parse(await fs.readFile(file, 'utf8'));
	} catch (e) {
		throw new Error(`Failed to load MCP configuration from ${path.resolve(file)}: ${(e as Error).message}`);
	}
	const parsed = McpConfigSchema.safeParse(raw);
	if (!parsed.success) {
		const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
		throw new Error(`Invalid MCP configuration in ${path.resolve(file)}: ${why.join('; ')}`);
	}
	return Object.fromEntries(
		Object.entries(parsed.data).map(([name, server]) => [
			name,
			isStdio(server)
				? {
						...server,
						args: server.args.map((a) => expand(a, vars)),
						...(server.env
							? { env: Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, expand(v, vars)])) }
							: {})
					}
				: server
		])
	);
}
