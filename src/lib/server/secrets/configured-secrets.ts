import { urlSecrets } from './display-url';

/** The settings that are secrets in themselves: never printed, not even when refused. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set(['SOPHOS_TOKEN', 'OPENAI_API_KEY', 'DATABASE_URL', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']);

/** The settings that are URLs, shown only through displayUrl. */
export const URL_SETTINGS: ReadonlySet<string> = new Set(['OLLAMA_HOST', 'OPENAI_BASE_URL', 'DATABASE_URL']);

/** Where secrets are configured: the settings as given (parsed or not), models.json, mcp.json. */
export type SecretSources = {
	settings?: Partial<Record<string, string>>;
	modelServers?: readonly { baseUrl: string; apiKey?: string }[];
	/** mcp.json's servers: an HTTP one's URL and headers count; a stdio one's command does not. */
	mcpServers?: readonly ({ url: string; headers?: Record<string, string>; oauth?: { clientSecret?: string; privateKey?: string } } | { command: string })[];
};

/**
 * Pure. Every secret the configuration holds, for the redactor: the secret settings whole, the
 * secrets in every configured URL (DATABASE_URL's password among them), each model server's key,
 * and the values of MCP servers' credential headers (Authorization, X-API-Key, …). The `env` of a
 * stdio MCP server is not counted: it mostly holds paths and options, which would blank ordinary
 * error text; a Sophos secret passed on there (`allowSecrets`) is known as that secret.
 */
export function configuredSecrets(sources: SecretSources): string[] {
	const settings = sources.settings ?? {};
	const secrets: string[] = [];
	for (const name of SECRET_SETTINGS) if (settings[name]) secrets.push(settings[name]!.trim());
	for (const name of URL_SETTINGS) if (settings[name]) secrets.push(...urlSecrets(settings[name]!.trim()));
	for (const server of sources.modelServers ?? []) {
		secrets.push(...urlSecrets(server.baseUrl));
		if (server.apiKey) secrets.push(server.apiKey);
	}
	for (const server of sources.mcpServers ?? []) {
		if (!('url' in server)) continue;
		secrets.push(...urlSecrets(server.url));
		for (const [name, value] of Object.entries(server.headers ?? {})) if (SECRET_HEADER.test(name)) secrets.push(value, ...bearerOf(value));
		if (server.oauth?.clientSecret) secrets.push(server.oauth.clientSecret);
		if (server.oauth?.privateKey) secrets.push(server.oauth.privateKey.trim(), ...pemLines(server.oauth.privateKey));
	}
	return secrets;
}

/**
 * A PEM key's body lines, each a secret of its own: an error or a log line that quotes the key
 * folded or cut still holds whole lines of it. The armour lines are not secrets.
 */
function pemLines(pem: string): string[] {
	return pem
		.split(/\r?\n/)
		.map((line) => line.trim())
		.filter((line) => line.length > 0 && !line.startsWith('-----'));
}

/** Headers that carry credentials by their name; `Accept` or `User-Agent` values are not secrets. */
const SECRET_HEADER = /auth|token|key|secret|cookie|session|pass/i;

/** `Bearer <token>` in a header: the token alone is what a server would quote back. */
function bearerOf(value: string): string[] {
	const match = /^\s*(?:Bearer|Basic|Token)\s+(\S+)\s*$/i.exec(value);
	return match?.[1] ? [match[1]] : [];
}
