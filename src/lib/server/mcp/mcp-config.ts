import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { expandReferences, unsetMessage } from '../config-file';
import { SECRET_SETTINGS } from '../secrets/configured-secrets';

/**
 * `$CONFIG_DIR/mcp.json`: server name → connection, as a flat map or wrapped in `{"mcpServers": …}`
 * (the shape Claude Desktop, Cursor and Cline write, so a pasted config works). Parsed strictly,
 * so a typo in a key is an error that names it rather than a server silently started without it.
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
 * TOOL_APPROVAL (mcp/approval-policy.ts).
 */
const ApprovalSchema = z.union([ApprovalModeSchema, z.record(z.string(), ApprovalModeSchema)]).optional();

/**
 * The Sophos secrets (SOPHOS_TOKEN, DATABASE_URL, OPENAI_API_KEY, a models.json key's variable)
 * this server's `${…}` may expand: a pasted config naming `${OPENAI_API_KEY}` in a server's env
 * would otherwise hand the key to whatever that server is.
 */
const AllowSecretsSchema = z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a variable name')).optional();

/**
 * Whether the server's tool annotations (readOnlyHint, openWorldHint, idempotentHint) are believed.
 * MCP calls them hints a client must not rely on from a server it does not trust, and a server can
 * say `readOnlyHint: true` of a tool that writes; unless `true`, every tool of the server counts as
 * one that writes, reaches the web and is not safe to repeat (issue 21).
 */
const TrustedSchema = z.boolean().optional();

/** Whether a tool's results are private data (the memory graph): for every tool, or per tool name. */
const PrivateSchema = z.union([z.boolean(), z.record(z.string(), z.boolean())]).optional();

/**
 * Whether calls that change the server's state are made one at a time (mcp/write-turns.ts). Default:
 * `true` for a stdio server (one child that loads, changes and saves its whole state, as memory does),
 * `false` for an HTTP one.
 */
const WriteTurnsSchema = z.boolean().optional();

const StdioServerSchema = z.strictObject({
	type: z.literal('stdio').optional(),
	transport: z.literal('stdio').optional(),
	command: z.string().min(1),
	args: z.array(z.string()).default([]),
	env: z.record(z.string(), z.string()).optional(),
	cwd: z.string().optional(),
	disabled: z.boolean().optional(),
	safeToRepeat: SafeToRepeatSchema,
	approval: ApprovalSchema,
	allowSecrets: AllowSecretsSchema,
	trusted: TrustedSchema,
	private: PrivateSchema,
	writeTurns: WriteTurnsSchema
});

/** `streamable-http` is what other clients call the transport MCP names Streamable HTTP. */
const HttpTransportSchema = z
	.enum(['http', 'streamable-http', 'sse'])
	.transform((t) => (t === 'streamable-http' ? 'http' : t))
	.optional();

/**
 * A remote server's OAuth sign-in (mcp/oauth/): a client registered beforehand, for servers that do
 * not offer dynamic registration (`clientSecret` may be a `${…}`), and the scope to ask for when the
 * server does not say. Without it Sophos registers itself. `grant: "client_credentials"` signs in as
 * the client itself, no person (machine to machine): it needs the client's id, its secret or the
 * private key it signs its assertions with (`privateKey`, PEM, with `signingAlgorithm`), and the
 * `issuer` of the authorization server they were registered with, the only one they are sent to.
 */
const OAuthSchema = z
	.strictObject({
		grant: z.enum(['authorization_code', 'client_credentials']).optional(),
		clientId: z.string().min(1).optional(),
		clientSecret: z.string().min(1).optional(),
		issuer: z.url({ protocol: /^https?$/ }).optional(),
		privateKey: z.string().min(1).optional(),
		signingAlgorithm: z.enum(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']).optional(),
		scope: z.string().min(1).optional()
	})
	.refine((o) => o.clientSecret === undefined || o.clientId !== undefined, { message: 'clientSecret needs a clientId', path: ['clientSecret'] })
	.refine((o) => o.grant !== 'client_credentials' || (o.clientId !== undefined && (o.clientSecret === undefined) !== (o.privateKey === undefined) && o.issuer !== undefined), {
		message: 'client_credentials needs a clientId, a clientSecret or a privateKey (not both), and the issuer',
		path: ['grant']
	})
	.refine((o) => (o.privateKey === undefined) === (o.signingAlgorithm === undefined), { message: 'privateKey and signingAlgorithm go together', path: ['privateKey'] })
	.refine((o) => o.grant === 'client_credentials' || (o.issuer === undefined && o.privateKey === undefined), {
		message: 'issuer and privateKey are for grant "client_credentials"',
		path: ['grant']
	})
	.optional();

const HttpServerSchema = z.strictObject({
	type: HttpTransportSchema,
	transport: HttpTransportSchema,
	url: z.url({ protocol: /^https?$/ }),
	headers: z.record(z.string(), z.string()).optional(),
	oauth: OAuthSchema,
	disabled: z.boolean().optional(),
	safeToRepeat: SafeToRepeatSchema,
	approval: ApprovalSchema,
	allowSecrets: AllowSecretsSchema,
	trusted: TrustedSchema,
	private: PrivateSchema,
	writeTurns: WriteTurnsSchema
});

export const McpServerConfigSchema = z.union([StdioServerSchema, HttpServerSchema]);
/** Paths under /api/mcp/ that are not a server's: `/api/mcp/prompts/…` must never be read as a server named `prompts`. */
const RESERVED_SERVER_NAMES = new Set(['prompts', 'resources']);

export const McpConfigSchema = z.record(
	z
		.string()
		.regex(/^[A-Za-z0-9_-]+$/, 'server names may hold letters, digits, _ and -')
		.refine((name) => !RESERVED_SERVER_NAMES.has(name), 'server names "prompts" and "resources" are reserved (the API\'s /api/mcp/prompts and /api/mcp/resources)'),
	McpServerConfigSchema
);
const WrappedConfigSchema = z.strictObject({ mcpServers: McpConfigSchema });

export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;
export type McpConfig = z.infer<typeof McpConfigSchema>;
export type HttpServerConfig = z.infer<typeof HttpServerSchema>;
/** mcp.json `oauth` of a remote server, as parsed. */
export type OAuthSettings = NonNullable<HttpServerConfig['oauth']>;

export function isStdio(c: McpServerConfig): c is z.infer<typeof StdioServerSchema> {
	return 'command' in c;
}

/**
 * Whether Sophos signs in to the server with OAuth when it asks (a 401 with OAuth metadata): every
 * remote server but one whose headers carry its own Authorization.
 */
export function signsInWithOAuth(c: McpServerConfig): c is HttpServerConfig {
	return !isStdio(c) && !Object.keys(c.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
}

/** Whether the server's writes take turns: its `writeTurns`, else stdio servers only. */
export function writesTakeTurns(c: McpServerConfig): boolean {
	return c.writeTurns ?? isStdio(c);
}

/** The `${…}` in a remote server's OAuth client secret or private key, expanded as in its headers. */
function expandOAuth(name: string, oauth: OAuthSettings, expand: (where: string, value: string) => string): OAuthSettings {
	return {
		...oauth,
		...(oauth.clientSecret ? { clientSecret: expand(`${name}.oauth.clientSecret`, oauth.clientSecret) } : {}),
		...(oauth.privateKey ? { privateKey: expand(`${name}.oauth.privateKey`, oauth.privateKey) } : {})
	};
}

/** What expanding one server's values needs: the environment, and which of it is Sophos's secrets. */
type Expansion = { vars: Record<string, string | undefined>; secrets: ReadonlySet<string>; allowed: ReadonlySet<string> };

function expander({ vars, secrets, allowed }: Expansion, problems: string[]) {
	const expand = (where: string, value: string) => {
		const expanded = expandReferences(value, vars);
		for (const name of expanded.used) {
			if (secrets.has(name) && !allowed.has(name)) problems.push(`${where} uses \${${name}}, one of Sophos's own secrets: ${allowMessage(where, name)}`);
		}
		for (const name of expanded.unset) problems.push(`${where} ${unsetMessage(name)}`);
		return expanded.value;
	};
	const expandAll = (where: string, map: Record<string, string>) =>
		Object.fromEntries(Object.entries(map).map(([k, v]) => [k, expand(`${where}.${k}`, v)]));
	return { expand, expandAll };
}

function allowMessage(where: string, name: string): string {
	const server = where.slice(0, where.indexOf('.'));
	return `list it in "${server}".allowSecrets (["${name}"]) to pass it to this server on purpose`;
}

/**
 * Expands `${…}` in args, env and headers, and leaves out servers marked `disabled`. A Sophos
 * secret (`secrets`) expands only in a server whose `allowSecrets` names it; otherwise it is a
 * problem that stops the start.
 */
function resolveServers(
	servers: McpConfig,
	vars: Record<string, string | undefined>,
	secrets: ReadonlySet<string>,
	problems: string[]
): McpConfig {
	return Object.fromEntries(
		Object.entries(servers)
			.filter(([, server]) => !server.disabled)
			.map(([name, server]): [string, McpServerConfig] => {
				const { expand, expandAll } = expander({ vars, secrets, allowed: new Set(server.allowSecrets) }, problems);
				return [
					name,
					isStdio(server)
						? {
								...server,
								args: server.args.map((a, i) => expand(`${name}.args.${i}`, a)),
								...(server.env ? { env: expandAll(`${name}.env`, server.env) } : {})
							}
						: {
								...server,
								...(server.headers ? { headers: expandAll(`${name}.headers`, server.headers) } : {}),
								...(server.oauth ? { oauth: expandOAuth(name, server.oauth, expand) } : {})
							}
				];
			})
	);
}

/**
 * Reads and resolves mcp.json. `secrets`: the names of the variables that are Sophos's own secrets
 * (SECRET_SETTINGS by default; the runtime adds the variables of models.json's keys), expanded
 * only where `allowSecrets` names them.
 */
export async function loadMcpConfig(
	file: string,
	vars: Record<string, string | undefined>,
	secrets: ReadonlySet<string> = SECRET_SETTINGS
): Promise<McpConfig> {
	const where = path.resolve(file);
	let raw: unknown;
	try {
		raw = JSON.parse(await fs.readFile(file, 'utf8'));
	} catch (e) {
		throw new Error(`Failed to load MCP configuration from ${where}: ${(e as Error).message}`);
	}
	// Told apart by the wrapper's key, so an error names the fields of the shape that was meant.
	const parsed =
		typeof raw === 'object' && raw !== null && 'mcpServers' in raw
			? WrappedConfigSchema.transform((c) => c.mcpServers).safeParse(raw)
			: McpConfigSchema.safeParse(raw);
	if (!parsed.success) {
		const why = parsed.error.issues.map((i) => {
			// zod says only "Invalid key in record" for a bad server name; the reason is one level down.
			const message = i.code === 'invalid_key' ? i.issues.map((k) => k.message).join(', ') : i.message;
			return `${i.path.join('.') || '(top level)'}: ${message}`;
		});
		throw new Error(`Invalid MCP configuration in ${where}: ${why.join('; ')}`);
	}
	const servers = parsed.data;
	const problems: string[] = [];
	const resolved = resolveServers(servers, vars, secrets, problems);
	if (problems.length) throw new Error(`Invalid MCP configuration in ${where}: ${problems.join('; ')}`);
	return resolved;
}
