import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { concat } from '@langchain/core/utils/stream';
import { messageText } from './messages';
import { reasoningOf } from '../models/model-call';

/** A piece of an answer as it streams: answer text or the model's thinking. */
export type AnswerPiece = { type: 'token' | 'reasoning'; text: string };

export type AnswerCall = {
	tools: StructuredToolInterface[];
	/** Aborts the model's request; an aborted call throws, it never returns a cut answer. */
	signal?: AbortSignal;
	/** Called with the pieces that arrived since the last call, at most once per turn of the event loop. */
	handOn: (pieces: AnswerPiece[]) => void;
	/**
	 * Characters of text and reasoning the answer keeps (MAX_ANSWER_CHARS). Past it the stream is
	 * closed, the answer ends with `cutNote` and has finish reason `length`, and its tool calls are
	 * dropped, since those after the cut never arrived: a server that sends 10 MB is not stored whole.
	 */
	maxChars: number;
};

export const cutNote = (maxChars: number) => `\n\n[Answer cut at the cap of ${maxChars} characters (MAX_ANSWER_CHARS).]`;

/** An empty record merges into nothing: @langchain/openai gives every chunk `usage: {}` until the usage chunk. */
/** Per chunk, so without the array Object.keys would allocate. */
function isEmptyRecord(value: unknown): boolean {
	if (typeof value !== 'object' || value === null) return false;
	for (const _ in value) return false;
	return true;
}

/**
 * Whether a chunk adds only text and reasoning to the answer, so its concatenation can wait: each
 * `concat` builds a new AIMessageChunk, the largest cost per token left (issue 15), and with many
 * runs each answer so built lives long enough between two tokens to be promoted to the old
 * generation, where it is garbage that only a full collection frees (most of the peak RSS, issue 26).
 */
function onlyText(chunk: AIMessageChunk): boolean {
	if (typeof chunk.content !== 'string' || chunk.tool_call_chunks?.length || chunk.usage_metadata) return false;
	for (const key in chunk.additional_kwargs) if (key !== 'reasoning_content') return false;
	for (const key in chunk.response_metadata) if (key !== 'model_provider' && !isEmptyRecord(chunk.response_metadata[key])) return false;
	return true;
}

/**
 * Text and reasoning of consecutive text-only chunks, concatenated into the answer in one step. Of
 * the first chunk only its id and a copy of its metadata are kept: a chunk kept for the whole answer
 * by each of many runs made V8 judge the client's allocation site long-lived and allocate every
 * later chunk of it in the old generation, as garbage that only a full collection frees (issue 26).
 */
class HeldText {
	private text: string[] = [];
	private reasoning: string[] = [];
	private first: { id: string | undefined; metadata: AIMessageChunk['response_metadata'] } | undefined;

	hold(chunk: AIMessageChunk, text: string, reasoning: string): void {
		this.first ??= { id: chunk.id, metadata: { ...chunk.response_metadata } };
		if (text) this.text.push(text);
		if (reasoning) this.reasoning.push(reasoning);
	}

	addTo(answer: AIMessageChunk | undefined): AIMessageChunk | undefined {
		if (this.first === undefined) return answer;
		const reasoning = this.reasoning.join('');
		const held = new AIMessageChunk({
			id: this.first.id,
			content: this.text.join(''),
			additional_kwargs: reasoning ? { reasoning_content: reasoning } : {},
			response_metadata: this.first.metadata
		});
		this.text = [];
		this.reasoning = [];
		this.first = undefined;
		return answer === undefined ? held : concat(answer, held);
	}
}

/**
 * Streams one model call and returns the whole answer, as the chat model's own `invoke` would have
 * built it (its chunks concatenated). The chunks come straight from the provider's
 * `_streamResponseChunks`, the method each LangChain chat model implements over its SDK, rather than
 * through `invoke` or `stream`: those run every chunk through the callback manager, an abort race and
 * (for LangGraph's `messages` stream mode) one stream event per token, which cost the service more
 * than the rest of the token path together (issue 15). The pieces of one network read arrive in one
 * chain of microtasks, so handing them on once the loop reaches its check phase gives them on per read.
 */
export async function streamAnswer(chat: BaseChatModel, messages: BaseMessage[], call: AnswerCall): Promise<AIMessageChunk> {
	let answer: AIMessageChunk | undefined;
	const held = new HeldText();
	let pending: AnswerPiece[] = [];
	let scheduled: NodeJS.Immediate | undefined;
	const handOn = () => {
		scheduled = undefined;
		if (pending.length === 0) return;
		const pieces = pending;
		pending = [];
		call.handOn(pieces);
	};
	const options = { tools: call.tools, signal: call.signal } as BaseChatModel['ParsedCallOptions'];
	const kept = { text: [] as string[], reasoning: [] as string[], room: call.maxChars };
	let cut = false;
	try {
		for await (const chunk of chat._streamResponseChunks(messages, options)) {
			const message = chunk.message as AIMessageChunk;
			let reasoning = reasoningOf(message);
			let text = messageText(message.content);
			if (reasoning.length + text.length > kept.room) {
				reasoning = reasoning.slice(0, kept.room);
				text = text.slice(0, kept.room - reasoning.length);
				cut = true;
			}
			kept.room -= reasoning.length + text.length;
			if (reasoning) kept.reasoning.push(reasoning);
			if (text) kept.text.push(text);
			if (reasoning) pending.push({ type: 'reasoning', text: reasoning });
			if (text) pending.push({ type: 'token', text });
			if (cut) {
				pending.push({ type: 'token', text: cutNote(call.maxChars) });
				// Leaving the loop closes the provider's stream, and with it the request.
				break;
			}
			if (onlyText(message)) held.hold(message, text, reasoning);
			else {
				answer = held.addTo(answer);
				answer = answer === undefined ? message : concat(answer, message);
			}
			if (pending.length > 0 && scheduled === undefined) scheduled = setImmediate(handOn);
		}
		// The clients end the stream quietly when they see the signal aborted between chunks.
		call.signal?.throwIfAborted();
	} finally {
		if (scheduled !== undefined) clearImmediate(scheduled);
		handOn();
	}
	const whole = held.addTo(answer) ?? new AIMessageChunk({ content: '' });
	if (!cut) return whole;
	const reasoning = kept.reasoning.join('');
	return new AIMessageChunk({
		id: whole.id,
		content: kept.text.join('') + cutNote(call.maxChars),
		additional_kwargs: reasoning ? { reasoning_content: reasoning } : {},
		response_metadata: { ...whole.response_metadata, finish_reason: 'length' },
		...(whole.usage_metadata ? { usage_metadata: whole.usage_metadata } : {})
	});
}
