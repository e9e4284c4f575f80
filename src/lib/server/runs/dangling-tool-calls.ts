import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';

/**
 * Pure: the tool calls of the last assistant message that have no tool message yet. A history with
 * such calls is rejected by several model providers, so they are closed before new input.
 */
export function danglingToolCalls(messages: readonly BaseMessage[]): { id: string; name: string }[] {
	const lastAi = messages.findLastIndex((m) => AIMessage.isInstance(m));
	if (lastAi < 0) return [];
	const ai = messages[lastAi] as AIMessage;
	const answered = new Set(
		messages.slice(lastAi + 1).flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : []))
	);
	return (ai.tool_calls ?? []).flatMap((c) => (c.id && !answered.has(c.id) ? [{ id: c.id, name: c.name }] : []));
}
