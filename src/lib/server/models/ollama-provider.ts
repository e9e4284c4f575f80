import { ChatOllama } from '@langchain/ollama';
import type { BaseMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { RunFailure } from '../errors';
import { networkErrorCode } from './network-error-code';
import type { ModelProvider } from './model-provider';
import type { ModelUsage } from '../../protocol';
import { fetchWithSignal } from './fetch-with-signal';
import { definedUsage, tokensPerSecond } from './model-usage';
import { displayUrl } from '../secrets/display-url';

const LIST_TIMEOUT_MS = 3000;

/** Ollama's own rule: a name without a tag means `:latest`, so "qwen3" and "qwen3:latest" are one model. */
const canonical = (name: string) => name.replace(/:latest$/, '');

/** Exact match: "qwen3" is served by "qwen3" or "qwen3:latest", never by "qwen3-coder". */
export function modelIsListed(names: string[], model: string): boolean {
	return names.some((n) => canonical(n) === canonical(model));
}

const TagsSchema = z.object({
	models: z.array(z.object({ name: z.string().optional(), model: z.string().optional() })).default([])
});

/** Ollama's figures on the last chunk of a reply: counts, and durations in nanoseconds. */
const EvalSchema = z.object({
	prompt_eval_count: z.number().optional(),
	eval_count: z.number().optional(),
	total_duration: z.number().optional(),
	load_duration: z.number().optional(),
	prompt_eval_duration: z.number().optional(),
	eval_duration: z.number().optional()
});

const ms = (ns: number | undefined) => (ns === undefined ? undefined : Math.round(ns / 1e5) / 10);

/** The Ollama client throws `ResponseError` with the HTTP status in `status_code`. */
function statusOf(e: unknown): number | undefined {
	const status = (e as { status_code?: unknown } | null)?.status_code;
	return typeof status === 'number' ? status : undefined;
}

/** Ollama through ChatOllama: OLLAMA_HOST, OLLAMA_THINK, MAX_ANSWER_TOKENS as num_predict; models from /api/tags. */
export class OllamaProvider implements ModelProvider {
	readonly name = 'ollama';
	readonly kind = 'ollama';

	constructor(private readonly options: { host: string; think: boolean; maxTokens?: number; fetch: typeof fetch }) {}

	get address(): string {
		return this.options.host;
	}

	chatModel(model: string, signal?: AbortSignal) {
		const { host, think, maxTokens } = this.options;
		return new ChatOllama({
			baseUrl: host,
			model,
			think,
			...(maxTokens !== undefined ? { numPredict: maxTokens } : {}),
			fetch: fetchWithSignal(this.options.fetch, signal)
		});
	}

	/** Names without `:latest`, as a person writes them (`qwen3`, `qwen3:8b`). */
	async listModels(): Promise<string[]> {
		const { host } = this.options;
		let res: Response;
		try {
			res = await fetch(new URL('/api/tags', host), { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
		} catch (e) {
			throw this.unreachable(e);
		}
		if (!res.ok) throw new RunFailure('AGENT_FAILURE', `Ollama at ${displayUrl(host)} answered ${res.status}`);
		const tags = TagsSchema.safeParse(await res.json().catch(() => null));
		if (!tags.success) throw new RunFailure('AGENT_FAILURE', `Ollama at ${displayUrl(host)} sent a model list that is not one`);
		return [...new Set(tags.data.models.flatMap((m) => [m.name, m.model].filter((n): n is string => !!n).map(canonical)))];
	}

	serves(listed: string[], model: string): boolean {
		return modelIsListed(listed, model);
	}

	notServed(model: string): RunFailure {
		return new RunFailure('MODEL_UNAVAILABLE', `Model "${model}" is not pulled on ${this.shownHost}: run \`ollama pull ${model}\``);
	}

	classifyError(e: unknown, model: string): RunFailure {
		if (e instanceof RunFailure) return e;
		const status = statusOf(e);
		const why = e instanceof Error ? e.message : String(e);
		// /api/chat exists on every Ollama, so its 404 can only mean the model is not there.
		if (status === 404) return new RunFailure('MODEL_UNAVAILABLE', this.notServed(model).message, { cause: e });
		if (status === 401 || status === 403) {
			return new RunFailure('MODEL_AUTH_FAILED', `Ollama at ${this.shownHost} refused the request (${status}): sign in with \`ollama signin\` for its cloud models.`, { cause: e });
		}
		if (status === 429) {
			return new RunFailure('MODEL_RATE_LIMITED', `Ollama at ${this.shownHost} is rate limited (429): wait, then resume the run.`, { cause: e });
		}
		if (status === undefined && networkErrorCode(e)) return this.unreachable(e);
		return new RunFailure('AGENT_FAILURE', `The model call failed: ${why}`, { cause: e });
	}

	usageOf(answer: BaseMessage): ModelUsage | undefined {
		const figures = EvalSchema.safeParse(answer.response_metadata ?? {});
		if (!figures.success) return undefined;
		const f = figures.data;
		const before = f.load_duration === undefined && f.prompt_eval_duration === undefined ? undefined : (f.load_duration ?? 0) + (f.prompt_eval_duration ?? 0);
		return definedUsage({
			inputTokens: f.prompt_eval_count,
			outputTokens: f.eval_count,
			firstTokenMs: ms(before),
			durationMs: ms(f.total_duration),
			tokensPerSecond: tokensPerSecond(f.eval_count, ms(f.eval_duration))
		});
	}

	/** OLLAMA_HOST as messages show it: without credentials or query secrets. */
	private get shownHost(): string {
		return displayUrl(this.options.host);
	}

	private unreachable(e: unknown): RunFailure {
		const code = networkErrorCode(e) ?? (e instanceof Error ? e.name : 'no answer');
		return new RunFailure('MODEL_UNREACHABLE', `Ollama is not reachable at ${this.shownHost} (${code}): start it with \`ollama serve\``, { cause: e });
	}
}
