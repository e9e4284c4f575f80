import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { OpenAIClient } from '@langchain/openai';
import { z } from 'zod';
import { RunFailure } from '../errors';
import { networkErrorCode } from './network-error-code';
import type { ModelProvider } from './model-provider';
import type { OpenAIEndpoint } from './models-config';
import type { ModelUsage } from '../../protocol';
import { fetchWithSignal } from './fetch-with-signal';
import { definedUsage, tokensPerSecond } from './model-usage';
import { OpenAICompatibleChatModel } from './openai-chat-model';
import { displayUrl } from '../secrets/display-url';

const LIST_TIMEOUT_MS = 3000;
/** Longest piece of a server's error message quoted back: it is the server's text, not ours. */
const QUOTE_MAX = 300;
/**
 * The client needs some key; without one configured it would read OPENAI_API_KEY from the
 * environment and send a hosted key to whatever server models.json names.
 */
const NO_KEY = 'sophos-no-key';

const TimingSchema = z.object({ total: z.number().nonnegative(), first_token: z.number().nonnegative().optional() });

/** The server's own message: `{error: {message}}` or `{error: "..."}`, cut short. */
function serverMessage(e: InstanceType<typeof OpenAIClient.APIError>): string {
	const body = e.error as { message?: unknown } | string | undefined;
	const text = typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : '';
	const quoted = text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text;
	return quoted ? `${e.status}: ${quoted}` : `${e.status}`;
}

function isTimeout(e: unknown): boolean {
	// @langchain/openai turns the client's timeout error into a plain Error of this name.
	return e instanceof OpenAIClient.APIConnectionError || (e instanceof Error && e.name === 'TimeoutError');
}

/** An OpenAI-compatible server (OPENAI_BASE_URL, or an entry of models.json) through ChatOpenAI's Chat Completions client. */
export class OpenAIProvider implements ModelProvider {
	readonly kind = 'openai';

	constructor(
		private readonly endpoint: OpenAIEndpoint,
		private readonly pacedFetch: typeof fetch,
		/** MAX_ANSWER_TOKENS, sent as max_tokens. */
		private readonly maxTokens?: number
	) {}

	get name(): string {
		return this.endpoint.name;
	}

	get address(): string {
		return this.endpoint.baseUrl;
	}

	chatModel(model: string, signal?: AbortSignal) {
		return new OpenAICompatibleChatModel(
			{
				model,
				apiKey: this.endpoint.apiKey ?? NO_KEY,
				// organization/project null: the client would otherwise send OPENAI_ORG_ID/OPENAI_PROJECT_ID along.
				configuration: { baseURL: this.endpoint.baseUrl, fetch: fetchWithSignal(this.pacedFetch, signal), organization: null, project: null },
				streaming: true,
				streamUsage: true,
				...(this.maxTokens !== undefined ? { maxTokens: this.maxTokens } : {}),
				// As with Ollama, a failed call fails the step at once: the run can be resumed, and a
				// retry hidden here would hold a run for a minute against a server that is down.
				maxRetries: 0
			},
			`${this.name}/${model}`
		);
	}

	async listModels(): Promise<string[]> {
		const client = new OpenAIClient({
			apiKey: this.endpoint.apiKey ?? NO_KEY,
			baseURL: this.endpoint.baseUrl,
			organization: null,
			project: null,
			maxRetries: 0,
			timeout: LIST_TIMEOUT_MS
		});
		const ids: string[] = [];
		try {
			for await (const m of client.models.list()) if (typeof m?.id === 'string') ids.push(m.id);
		} catch (e) {
			if (e instanceof OpenAIClient.NotFoundError) {
				throw new RunFailure(
					'MODEL_UNAVAILABLE',
					`Nothing lists models at ${displayUrl(this.endpoint.baseUrl)}/models (${serverMessage(e)}): check ${this.endpoint.urlSetting}, which usually ends in /v1.`,
					{ cause: e }
				);
			}
			throw this.classifyError(e, '');
		}
		return ids;
	}

	serves(listed: string[], model: string): boolean {
		return listed.includes(model);
	}

	notServed(model: string): RunFailure {
		return new RunFailure(
			'MODEL_UNAVAILABLE',
			`The model "${model}" is not served by "${this.name}" at ${displayUrl(this.endpoint.baseUrl)}: load it in the server, or choose one that GET /api/models lists.`
		);
	}

	classifyError(e: unknown, model: string): RunFailure {
		if (e instanceof RunFailure) return e;
		const { name } = this;
		const { urlSetting, keySetting } = this.endpoint;
		// The address as a person may read it: credentials and query secrets stay out of the message.
		const baseUrl = displayUrl(this.endpoint.baseUrl);
		if (isTimeout(e)) {
			const code = networkErrorCode(e) ?? (e as Error).name;
			return new RunFailure(
				'MODEL_UNREACHABLE',
				`The model server "${name}" is not reachable at ${baseUrl} (${code}): start it (LM Studio's server, llama-server, vllm serve), or fix ${urlSetting}.`,
				{ cause: e }
			);
		}
		if (e instanceof OpenAIClient.AuthenticationError || e instanceof OpenAIClient.PermissionDeniedError) {
			return new RunFailure('MODEL_AUTH_FAILED', `The model server "${name}" at ${baseUrl} refused the API key (${serverMessage(e)}): set ${keySetting}.`, { cause: e });
		}
		if (e instanceof OpenAIClient.NotFoundError) {
			return new RunFailure(
				'MODEL_UNAVAILABLE',
				`The model "${model}" is not available on "${name}" at ${baseUrl} (${serverMessage(e)}): load it in the server, or choose one that GET /api/models lists.`,
				{ cause: e }
			);
		}
		if (e instanceof OpenAIClient.RateLimitError) {
			const retryAfter = e.headers?.get('retry-after');
			const message =
				e.code === 'insufficient_quota'
					? `The model server "${name}" is out of quota (${serverMessage(e)}): check the account's plan and billing, then resume the run.`
					: `The model server "${name}" is rate limited (${serverMessage(e)})${retryAfter ? `, retry after ${retryAfter} s` : ''}: wait, then resume the run.`;
			return new RunFailure('MODEL_RATE_LIMITED', message, { cause: e });
		}
		if (e instanceof OpenAIClient.APIError && e.status !== undefined) {
			// Tool calls are what most often trips a local server that was started without them.
			const hint =
				e.status === 400 || e.status === 500
					? " If tool calls are the cause: llama.cpp's llama-server needs --jinja; vLLM needs --enable-auto-tool-choice and --tool-call-parser."
					: '';
			return new RunFailure('AGENT_FAILURE', `The model call to "${name}" failed (${serverMessage(e)}).${hint}`, { cause: e });
		}
		const why = e instanceof Error ? e.message : String(e);
		return new RunFailure('AGENT_FAILURE', `The model call to "${name}" failed: ${why}`, { cause: e });
	}

	usageOf(answer: BaseMessage): ModelUsage | undefined {
		const tokens = (answer as Partial<Pick<AIMessage, 'usage_metadata'>>).usage_metadata;
		const timing = TimingSchema.safeParse((answer.response_metadata as Record<string, unknown> | undefined)?.timing_ms);
		const t = timing.success ? timing.data : undefined;
		const round = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * 10) / 10);
		return definedUsage({
			inputTokens: tokens?.input_tokens,
			outputTokens: tokens?.output_tokens,
			firstTokenMs: round(t?.first_token),
			durationMs: round(t?.total),
			tokensPerSecond: t ? tokensPerSecond(tokens?.output_tokens, t.total - (t.first_token ?? 0)) : undefined
		});
	}
}
