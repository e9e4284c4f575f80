import { AIMessage, AIMessageChunk, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { TraceNote } from '../../protocol';
import { messageText, reasoningOf, reusedFromOf } from './messages';

/** Pure: turns LangGraph's `messages` stream into the run's token, reasoning and trace events. */


export type AgentEvent =
	| { type: 'token'; text: string }
	| { type: 'reasoning'; text: string }
	| { type: 'trace'; note: TraceNote };

type StreamMetadata = { langgraph_node?: string; langgraph_step?: number; ls_model_name?: string };

function isAi(m: BaseMessage): boolean {
	return AIMessageChunk.isInstance(m) || AIMessage.isInstance(m);
}

export async function* agentEvents(
	stream: AsyncIterable<[BaseMessage, StreamMetadata]>
): AsyncGenerator<AgentEvent> {
	let current: { step: number; node: string; name: string } | null = null;
	const trace = (note: TraceNote): AgentEvent => ({ type: 'trace', note });

	for await (const [message, meta] of stream) {
		const node = meta.langgraph_node ?? '';
		const step = meta.langgraph_step ?? -1;
		if (!current || step > current.step) {
			if (current && current.node !== node) {
				yield trace({ step: current.step, name: current.name, node: current.node, event: 'leave' });
			}
			const name = isAi(message)
				? (meta.ls_model_name ?? '')
				: ToolMessage.isInstance(message)
					? (message.name ?? '')
					: '';
			current = { step, node, name };
			yield trace({ step, name, node, event: 'enter' });
		}
		if (node === 'agent' && isAi(message)) {
			const reasoning = reasoningOf(message);
			if (reasoning) yield { type: 'reasoning', text: reasoning };
			const text = messageText(message.content);
			if (text) yield { type: 'token', text };
			for (const call of (message as AIMessage).tool_calls ?? []) {
				yield trace({
					step,
					name: call.name,
					node: 'tools',
					event: 'call',
					data: { name: call.name, arguments: call.args, tool_call_id: call.id }
				});
			}
		} else if (node === 'tools' && ToolMessage.isInstance(message) && message.name && message.tool_call_id) {
			const reusedFrom = reusedFromOf(message);
			yield trace({
				step,
				name: message.name,
				node: 'tools',
				event: 'result',
				data: {
					name: message.name,
					tool_call_id: message.tool_call_id,
					status: message.status ?? 'success',
					result: messageText(message.content),
					...(reusedFrom ? { reusedFrom } : {})
				}
			});
		}
	}
	if (current) yield trace({ step: current.step, name: current.name, node: current.node, event: 'leave' });
}
