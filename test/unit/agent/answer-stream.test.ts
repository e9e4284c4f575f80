import { setImmediate as nextTurn } from 'node:timers/promises';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, HumanMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { streamAnswer, type AnswerPiece } from '../../../src/lib/server/agent/answer-stream';
import { OllamaProvider } from '../../../src/lib/server/models/ollama-provider';
import { OpenAIProvider } from '../../../src/lib/server/models/openai-provider';
import type { ScriptedReply } from '../../support/model-script';
import { ScriptedOllama } from '../../support/scripted-ollama';
import { ScriptedOpenAI } from '../../support/scripted-openai';

const readGraph = tool(async () => '{}', { name: 'memory__read_graph', description: 'Reads the graph.', schema: z.object({ query: z.string() }) });
const question = [new HumanMessage('what do you know?')];
const reply: ScriptedReply = {
	thinking: 'Look in the graph first, then answer.',
	content: 'Looking it up now.',
	toolCalls: [{ name: 'memory__read_graph', arguments: { query: 'everything about the user' } }]
};

async function streamed(chat: BaseChatModel, messages: BaseMessage[], signal?: AbortSignal, onPieces?: (text: string) => void) {
	const handedOn: AnswerPiece[][] = [];
	const handOn = (pieces: AnswerPiece[]) => {
		handedOn.push(pieces);
		onPieces?.(handedOn.flat().map((p) => p.text).join(''));
	};
	const answer = await streamAnswer(chat, messages, { tools: [readGraph], signal, handOn, maxChars: 200_000 });
	return { answer, handedOn };
}

/**
 * Makes invoke stream, as LangGraph's `messages` mode did: otherwise ChatOpenAI counts the tokens
 * of a streamed answer itself, with an encoding it would download.
 */
class PrefersStreaming extends BaseCallbackHandler {
	name = 'prefers-streaming';
	lc_prefer_streaming = true;
}

/** What the thread keeps of an answer, beside the ids and the server's clock (new on every call). */
function kept(m: AIMessage | AIMessageChunk) {
	const fields = {
		content: m.content,
		additional_kwargs: m.additional_kwargs,
		tool_calls: m.tool_calls?.map(({ name, args, type }) => ({ name, args, type })),
		usage_metadata: m.usage_metadata
	};
	return JSON.parse(JSON.stringify(fields).replace(/"(call_|chatcmpl-)[0-9a-f]+"/g, '"id"'));
}

describe('streamAnswer', () => {
	let ollama: ScriptedOllama;
	let openai: ScriptedOpenAI;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(() => reply);
		openai = await ScriptedOpenAI.start(() => reply);
	});
	afterAll(async () => {
		await Promise.all([ollama.close(), openai.close()]);
	});

	const providers = {
		ollama: (signal?: AbortSignal) => new OllamaProvider({ host: ollama.url, think: true, fetch }).chatModel('qwen3', signal),
		openai: (signal?: AbortSignal) =>
			new OpenAIProvider({ name: 'openai', baseUrl: openai.url, urlSetting: 'OPENAI_BASE_URL', keySetting: 'OPENAI_API_KEY' }, fetch).chatModel('qwen3-8b', signal)
	};

	it.each(Object.keys(providers) as (keyof typeof providers)[])(
		'returns the answer the %s client’s invoke returns, and hands on its text and reasoning in order',
		async (name) => {
			const invoked = (await providers[name]().bindTools!([readGraph]).invoke(question, { callbacks: [new PrefersStreaming()] })) as AIMessage;
			const { answer, handedOn } = await streamed(providers[name](), question);
			// OpenAI's timings and Ollama's clock are the call's own; everything else is the same answer.
			const { timing_ms: invokedTiming, created_at: invokedAt, ...invokedMeta } = invoked.response_metadata as Record<string, unknown>;
			const { timing_ms: timing, created_at: at, ...meta } = answer.response_metadata as Record<string, unknown>;
			expect(typeof at).toBe(typeof invokedAt);
			expect(kept(answer)).toEqual(kept(invoked));
			expect(meta).toEqual(invokedMeta);
			expect(typeof timing).toBe(typeof invokedTiming);
			expect(answer.tool_calls).toEqual([expect.objectContaining({ name: 'memory__read_graph', args: { query: 'everything about the user' } })]);
			const pieces = handedOn.flat();
			expect(pieces.filter((p) => p.type === 'reasoning').map((p) => p.text).join('')).toBe(reply.thinking);
			expect(pieces.filter((p) => p.type === 'token').map((p) => p.text).join('')).toBe(reply.content);
			expect(pieces.findIndex((p) => p.type === 'token')).toBeGreaterThan(pieces.findLastIndex((p) => p.type === 'reasoning'));
		}
	);

	it.each(Object.keys(providers) as (keyof typeof providers)[])('a cancel reaches the %s request while the model is silent, and throws', async (name) => {
		const hold = `silent-${name}`;
		const server = name === 'ollama' ? ollama : openai;
		server.script = () => ({ content: 'Half of an answer.', chunkChars: 5, hold, holdAfterChunks: 2 });
		try {
			const abort = new AbortController();
			// Once the client has handed on both chunks before the hold, it waits on the socket.
			let silent!: () => void;
			const waiting = new Promise<void>((resolve) => (silent = resolve));
			const call = streamed(providers[name](abort.signal), question, abort.signal, (text) => text === 'Half of an' && silent());
			await waiting;
			abort.abort(new Error('cancelled by the test'));
			await expect(call).rejects.toThrow();
		} finally {
			server.release(hold);
			server.script = () => reply;
		}
	});

	it('hands on the pieces that arrive in one turn of the event loop together, and the rest in later calls', async () => {
		class TwoReads extends BaseChatModel {
			_llmType() {
				return 'two-reads';
			}
			async _generate(): Promise<ChatResult> {
				throw new Error('streams only');
			}
			async *_streamResponseChunks(): AsyncGenerator<ChatGenerationChunk> {
				for (const read of [['a', 'b', 'c'], ['d', 'e']]) {
					for (const text of read) yield new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text }) });
					await nextTurn();
				}
			}
		}
		const { answer, handedOn } = await streamed(new TwoReads({}), question);
		expect(handedOn.map((pieces) => pieces.map((p) => p.text).join(''))).toEqual(['abc', 'de']);
		expect(answer.content).toBe('abcde');
	});
});
