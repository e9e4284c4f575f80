import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';

/** A message part in the GenAI conventions' JSON shape (gen_ai.input.messages). */
type Part =
	| { type: 'text'; content: string }
	| { type: 'tool_call'; id: string | null; name: string; arguments: unknown }
	| { type: 'tool_call_response'; id: string; response: string };

export type GenAiMessage = { role: 'system' | 'user' | 'assistant' | 'tool'; parts: Part[] };

const ROLES: Record<string, GenAiMessage['role']> = { system: 'system', human: 'user', ai: 'assistant', tool: 'tool' };

/**
 * Pure. The messages a model call sends, as the GenAI conventions write them: each with its role
 * and its parts (text, the assistant's tool calls, a tool's response to one). A message of another
 * kind (LangChain's generic ones) counts as the user's.
 */
export function genAiMessages(messages: readonly BaseMessage[]): GenAiMessage[] {
	return messages.map((message) => {
		const role = ROLES[message.getType()] ?? 'user';
		if (ToolMessage.isInstance(message)) {
			return { role, parts: [{ type: 'tool_call_response', id: message.tool_call_id, response: message.text }] };
		}
		const parts: Part[] = message.text === '' ? [] : [{ type: 'text', content: message.text }];
		if (AIMessage.isInstance(message)) {
			for (const call of message.tool_calls ?? []) parts.push({ type: 'tool_call', id: call.id ?? null, name: call.name, arguments: call.args });
		}
		return { role, parts };
	});
}
