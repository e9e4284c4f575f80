import type { ModelProvider } from './model-provider';
import type { OpenAIEndpoint } from './models-config';
import { OllamaProvider } from './ollama-provider';
import { OpenAIProvider } from './openai-provider';

/**
 * The providers the settings and models.json configure, in the order GET /api/models lists them:
 * `ollama`, `openai` (OPENAI_BASE_URL), then models.json's. All share `fetch`, the paced one.
 */
/** The model settings (settings.ts) the providers are built from. */
export type ProviderSettings = {
	ollamaEnabled: boolean;
	OLLAMA_HOST: string;
	OLLAMA_THINK: boolean;
	OPENAI_BASE_URL?: string;
	OPENAI_API_KEY?: string;
	MAX_ANSWER_TOKENS?: number;
};

export function configuredProviders(settings: ProviderSettings, endpoints: readonly OpenAIEndpoint[], fetch: typeof globalThis.fetch): ModelProvider[] {
	const providers: ModelProvider[] = [];
	if (settings.ollamaEnabled) {
		providers.push(
			new OllamaProvider({ host: settings.OLLAMA_HOST, think: settings.OLLAMA_THINK, maxTokens: settings.MAX_ANSWER_TOKENS, fetch })
		);
	}
	if (settings.OPENAI_BASE_URL) {
		const endpoint: OpenAIEndpoint = {
			name: 'openai',
			baseUrl: settings.OPENAI_BASE_URL,
			...(settings.OPENAI_API_KEY ? { apiKey: settings.OPENAI_API_KEY } : {}),
			urlSetting: 'OPENAI_BASE_URL',
			keySetting: 'OPENAI_API_KEY'
		};
		providers.push(new OpenAIProvider(endpoint, fetch, settings.MAX_ANSWER_TOKENS));
	}
	for (const endpoint of endpoints) providers.push(new OpenAIProvider(endpoint, fetch, settings.MAX_ANSWER_TOKENS));
	return providers;
}
