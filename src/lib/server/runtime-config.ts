import path from 'node:path';
import { fetchProtectedHosts } from './mcp/fetch-protected-hosts';
import { loadMcpConfig, type McpConfig } from './mcp/mcp-config';
import { loadModelsConfig, type OpenAIEndpoint } from './models/models-config';
import { ensurePrivateDir, restrictFile } from './private-files';
import { configuredSecrets, SECRET_SETTINGS } from './secrets/configured-secrets';
import { redactor } from './secrets/redactor';
import type { Settings } from './settings';

export type RuntimeConfig = { endpoints: OpenAIEndpoint[]; mcpConfig: McpConfig };

/**
 * The config directory's files, in the order their secrets need: models.json first, since the
 * variables its keys come from are secrets mcp.json may pass on only when asked to; then mcp.json,
 * told the memory file (kept private) and what the fetch server must not reach. Every secret
 * either holds is known to the redactor before anything else reads them.
 */
export async function readRuntimeConfig(settings: Settings, env: Record<string, string | undefined>): Promise<RuntimeConfig> {
	ensurePrivateDir(path.dirname(settings.paths.memoryFile));
	restrictFile(settings.paths.memoryFile);
	const endpoints = await loadModelsConfig(path.join(settings.paths.configDir, 'models.json'), env);
	const secretVariables = new Set([...SECRET_SETTINGS, ...endpoints.flatMap((e) => e.keyVariables ?? [])]);
	const modelUrls = [settings.OLLAMA_HOST, ...(settings.OPENAI_BASE_URL ? [settings.OPENAI_BASE_URL] : []), ...endpoints.map((e) => e.baseUrl)];
	const mcpConfig = await loadMcpConfig(
		path.join(settings.paths.configDir, 'mcp.json'),
		{ ...env, MEMORY_FILE_PATH: settings.paths.memoryFile, SOPHOS_PROTECTED_HOSTS: fetchProtectedHosts(settings, modelUrls) },
		secretVariables
	);
	redactor.add(...configuredSecrets({ modelServers: endpoints, mcpServers: Object.values(mcpConfig) }));
	return { endpoints, mcpConfig };
}
