import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { ChatGenerationChunk } from '@langchain/core/outputs';
import { ChatOpenAICompletions, type BaseChatOpenAIFields, type OpenAIClient } from '@langchain/openai';
import { modelCallOf } from './model-call';
import { reasoningOf } from './model-call';

type Chunk = OpenAIClient.Chat.Completions.ChatCompletionChunk;
type Request = OpenAIClient.Chat.ChatCompletionCreateParams;
type RequestOptions = OpenAIClient.RequestOptions;

/** Carries, from the messages of a call to its request, the reasoning to send back with them. */
const SEND_BACK = Symbol('reasoning to send back');
type WithSendBack = { [SEND_BACK]?: Map<string, string> };

/**
 * Our reasoning of this model's own tool-call turns, by the id of the turn's first tool call. Servers
 * that think before calling tools (DeepSeek, Kimi) refuse a history whose tool-call turns come back
 * without it (400 "reasoning_content ... must be passed back"); ChatOpenAI never sends it. Only the
 * model that wrote it gets it back: another model has no use for a third party's thoughts.
 */
export function reasoningToSendBack(messages: readonly BaseMessage[], modelId: string): Map<string, string> {
	const byCall = new Map<string, string>();
	for (const m of messages) {
		if (!AIMessage.isInstance(m) || modelCallOf(m)?.model !== modelId) continue;
		const first = m.tool_calls?.[0]?.id;
		const reasoning = reasoningOf(m);
		if (first && reasoning) byCall.set(first, reasoning);
	}
	return byCall;
}

/**
 * Servers name streamed reasoning `reasoning_content` (DeepSeek, LM Studio, older llama.cpp) or
 * `reasoning` (vLLM, newer llama.cpp); @langchain/openai reads only the first, so the second is
 * copied into it. A server that sends both sends the same text twice: the first is kept.
 */
function copyReasoning(chunk: Chunk): void {
	for (const choice of chunk.choices ?? []) {
		const delta = choice.delta as { reasoning?: unknown; reasoning_content?: unknown } | undefined;
		if (delta && typeof delta.reasoning === 'string' && delta.reasoning_content == null) {
			delta.reasoning_content = delta.reasoning;
		}
	}
}

/**
 * The chunks with their reasoning copied, through a hand-written iterator rather than an async
 * generator: a generator's layer costs every chunk several promises, each of them tracked by the
 * async hooks of AsyncLocalStorage, and with many runs streaming those allocations are promoted
 * garbage that counts in the peak RSS (issue 26). Stopping early (`return`) closes the request.
 */
function withReasoningContent(chunks: AsyncIterable<Chunk>): AsyncIterable<Chunk> {
	return {
		[Symbol.asyncIterator]() {
			const source = chunks[Symbol.asyncIterator]();
			return {
				next: () =>
					source.next().then((read) => {
						if (!read.done) copyReasoning(read.value);
						return read;
					}),
				return: (value?: unknown) => source.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined })
			};
		}
	};
}

function carriesOutput(chunk: ChatGenerationChunk): boolean {
	const message = chunk.message as AIMessageChunk;
	return chunk.text !== '' || reasoningOf(message) !== '' || (message.tool_call_chunks?.length ?? 0) > 0;
}

/**
 * ChatOpenAI's Chat Completions client (the protocol every OpenAI-compatible server speaks; the
 * Responses API is OpenAI's own), with three additions made where the library lets a subclass in:
 * both reasoning fields stream, reasoning goes back with this model's tool-call turns, and the call
 * is timed (the usage chunk has token counts only), the timings landing in the answer's
 * `response_metadata.timing_ms`.
 */
export class OpenAICompatibleChatModel extends ChatOpenAICompletions {
	/** `modelId`: this model's `<provider>/<model>`, to tell its own turns in the history. */
	constructor(
		fields: BaseChatOpenAIFields & { model: string },
		private readonly modelId: string
	) {
		super(fields);
	}

	override async *_streamResponseChunks(
		messages: BaseMessage[],
		options: this['ParsedCallOptions'],
		runManager?: CallbackManagerForLLMRun
	): AsyncGenerator<ChatGenerationChunk> {
		const started = performance.now();
		let firstToken: number | undefined;
		const withSendBack = { ...options, [SEND_BACK]: reasoningToSendBack(messages, this.modelId) };
		for await (const chunk of super._streamResponseChunks(messages, withSendBack, runManager)) {
			if (firstToken === undefined && carriesOutput(chunk)) firstToken = performance.now();
			yield chunk;
		}
		const ended = performance.now();
		const timing_ms = { total: ended - started, ...(firstToken !== undefined ? { first_token: firstToken - started } : {}) };
		yield new ChatGenerationChunk({ text: '', message: new AIMessageChunk({ content: '', response_metadata: { timing_ms } }) });
	}

	override completionWithRetry(
		request: OpenAIClient.Chat.ChatCompletionCreateParamsStreaming,
		requestOptions?: RequestOptions
	): Promise<AsyncIterable<Chunk>>;
	override completionWithRetry(
		request: OpenAIClient.Chat.ChatCompletionCreateParamsNonStreaming,
		requestOptions?: RequestOptions
	): Promise<OpenAIClient.Chat.Completions.ChatCompletion>;
	override async completionWithRetry(
		request: Request,
		requestOptions?: RequestOptions & WithSendBack
	): Promise<AsyncIterable<Chunk> | OpenAIClient.Chat.Completions.ChatCompletion> {
		const { [SEND_BACK]: sendBack, ...options } = requestOptions ?? {};
		const messages = sendBack?.size
			? request.messages.map((m) => {
					const first = m.role === 'assistant' ? m.tool_calls?.[0]?.id : undefined;
					const reasoning = first === undefined ? undefined : sendBack.get(first);
					return reasoning === undefined ? m : { ...m, reasoning_content: reasoning };
				})
			: request.messages;
		if (request.stream) return withReasoningContent(await super.completionWithRetry({ ...request, messages }, options));
		return super.completionWithRetry({ ...request, messages }, options);
	}
}
