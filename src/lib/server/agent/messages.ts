import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ReusedFromSchema, type MessageDto, type ReusedFrom } from '../../protocol';
import { modelCallOf, reasoningOf } from '../models/model-call';

/** Flattens string or multi-part content to its text. */
export function messageText(content: BaseMessage['content']): string {
	if (typeof content === 'string') return content;
	return content
		.map((part) => (typeof part === 'string' ? part : part.type === 'text' ? String(part.text) : ''))
		.join('');
}

/** Where a tool message's result came from, when tools/branch-reuse.ts took it from another branch. */
export function reusedFromOf(message: BaseMessage): ReusedFrom | undefined {
	const parsed = ReusedFromSchema.safeParse(message.additional_kwargs?.reused_from);
	return parsed.success ? parsed.data : undefined;
}

/** Whether the API shows the message: user, assistant and tool messages are; system and others not. */
export function isShownMessage(message: BaseMessage): boolean {
	return HumanMessage.isInstance(message) || AIMessage.isInstance(message) || ToolMessage.isInstance(message);
}

/** Ollama says `done_reason`, an OpenAI-compatible server `finish_reason`; answer-stream.ts sets the latter on a cut. */
function stoppedAtLength(message: AIMessage): boolean {
	const meta = message.response_metadata ?? {};
	return meta.finish_reason === 'length' || meta.done_reason === 'length';
}

/** Projects a LangChain message to the API's shape; system and other kinds are not shown. */
export function toMessageDto(message: BaseMessage): MessageDto | null {
	const id = message.id ?? '';
	const content = messageText(message.content);
	if (HumanMessage.isInstance(message)) return { id, role: 'user', content };
	if (AIMessage.isInstance(message)) {
		const reasoning = reasoningOf(message);
		const calls = message.tool_calls ?? [];
		const call = modelCallOf(message);
		return {
			id,
			role: 'assistant',
			content,
			...(reasoning ? { reasoning } : {}),
			...(calls.length
				? { toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) }
				: {}),
			...(call ? { model: call.model } : {}),
			...(call?.usage ? { usage: call.usage } : {}),
			...(stoppedAtLength(message) ? { finishReason: 'length' as const } : {})
		};
	}
	if (ToolMessage.isInstance(message)) {
		const reusedFrom = reusedFromOf(message);
		return {
			id,
			role: 'tool',
			content,
			...(message.name ? { name: message.name } : {}),
			toolCallId: message.tool_call_id,
			status: message.status === 'error' ? 'error' : 'success',
			...(reusedFrom ? { reusedFrom } : {})
		};
	}
	return null;
}

export function toMessageDtos(messages: readonly BaseMessage[]): MessageDto[] {
	return messages.flatMap((m) => toMessageDto(m) ?? []);
}
