import { z } from 'zod';
import { expandReferences, readJsonConfig, unsetMessage } from '../config-file';
import { PROVIDER_NAME } from '../../protocol/model-id';

/** An OpenAI-compatible server: LM Studio, llama.cpp's server, vLLM or a hosted API. */
export type OpenAIEndpoint = {
	name: string;
	baseUrl: string;
	apiKey?: string;
	/** Where a person fixes its address and its key, for messages: settings or keys of models.json. */
	urlSetting: string;
	keySetting: string;
	/** The variables its `apiKey` is taken from: Sophos's secrets, which mcp.json may not pass on unasked. */
	keyVariables?: string[];
};

/** Names taken by the providers that settings configure: `ollama`, and `openai` (OPENAI_BASE_URL). */
const RESERVED = new Set(['ollama', 'openai']);

function modelsConfigSchema(vars: Record<string, string | undefined>) {
	// The names a value used are kept for apiKey: they are secrets mcp.json may not pass on unasked.
	const expanded = z.string().transform((v, ctx) => {
		const { value, used, unset } = expandReferences(v, vars);
		for (const name of unset) ctx.addIssue({ code: 'custom', message: unsetMessage(name) });
		return { value, used };
	});
	return z
		.record(
			z.string(),
			z.strictObject({
				baseUrl: expanded.transform((e) => e.value).pipe(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:1234/v1' })),
				apiKey: expanded.optional()
			})
		)
		.superRefine((config, ctx) => {
			// Checked here rather than as the record's key schema, whose issue would not say why.
			for (const name of Object.keys(config)) {
				if (!PROVIDER_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'provider names may hold letters, digits, _ and -' });
				else if (RESERVED.has(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'this name is taken by a provider that settings configure' });
			}
		});
}

/**
 * `$CONFIG_DIR/models.json`: provider name → `{baseUrl, apiKey}`, parsed strictly like mcp.json,
 * with `${NAME}` taken from the service's environment as in mcp.json (unset fails the start;
 * `${NAME:-}` for an optional one). No file: no extra providers.
 */
export async function loadModelsConfig(file: string, vars: Record<string, string | undefined>): Promise<OpenAIEndpoint[]> {
	const config = await readJsonConfig(file, modelsConfigSchema(vars), 'model server configuration', { optional: true });
	return Object.entries(config ?? {}).map(([name, entry]) => ({
		name,
		baseUrl: entry.baseUrl,
		...(entry.apiKey?.value ? { apiKey: entry.apiKey.value } : {}),
		...(entry.apiKey ? { keyVariables: entry.apiKey.used } : {}),
		urlSetting: `"${name}".baseUrl in models.json`,
		keySetting: `"${name}".apiKey in models.json`
	}));
}
