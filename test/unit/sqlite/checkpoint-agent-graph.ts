// Test and bench fixture: an agent ⇄ tools graph with an instant, scripted chat model and a tool
// returning ~2 kB of text, on the app's state definition (AgentState), so the benchmark measures
// the reducer that ships. Message ids are deterministic so two runs can be compared value for value.

import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { AgentState } from '../../../src/lib/server/agent/agent-state.js';

/** Asks for one tool call after a human message, answers after a tool result. */
class ScriptedChatModel extends BaseChatModel {
	_llmType(): string {
		return 'scripted';
	}

	// The graph calls the model directly; binding tools is a no-op for a scripted model.
	bindTools(): this {
		return this;
	}

	async _generate(messages: BaseMessage[]): Promise<ChatResult> {
		const last = messages[messages.length - 1];
		const n = messages.length;
		const message =
			last?.getType() === 'human'
				? new AIMessage({
						id: `ai-${n}`,
						content: '',
						tool_calls: [{ id: `call-${n}`, name: 'lookup', args: { query: String(last.content) } }]
					})
				: new AIMessage({ id: `ai-${n}`, content: `Here is what I found (${n} messages so far).` });
		return { generations: [{ text: String(message.content), message }] };
	}
}

const WORDS = (
	'the of and to in is was for on that with as by it at from his an were are which this be or has had ' +
	'not but first one their its new after who they have her she two been other when there all during ' +
	'into school time may years more most only over city some world would where later up such used many ' +
	'can state about national out known university united then made local checkpoint history message'
).split(' ');

/** Deterministic prose-like text of exactly `bytes` ASCII bytes. */
export function toolResultText(seed: number, bytes: number): string {
	let state = seed >>> 0 || 1;
	const next = () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	let text = '';
	while (text.length < bytes) text += WORDS[Math.floor(next() * WORDS.length)] + (next() < 0.08 ? '. ' : ' ');
	return text.slice(0, bytes);
}

export const TOOL_RESULT_BYTES = 2048;

const lookup = tool(
	async ({ query }, config) => {
		const callId = config.toolCall?.id ?? 'call';
		return new ToolMessage({
			id: `tool-${callId}`,
			tool_call_id: callId,
			name: 'lookup',
			content: toolResultText(query.length * 7919 + callId.length, TOOL_RESULT_BYTES)
		});
	},
	{ name: 'lookup', description: 'Look something up.', schema: z.object({ query: z.string() }) }
);

export interface AgentGraphOptions {
	/** Stop before running tools, so a run can be resumed later with `invoke(null)`. */
	interruptBeforeTools?: boolean;
}

/** Without a checkpointer the graph uses its parent's, as a subgraph. */
export function buildAgentGraph(checkpointer?: BaseCheckpointSaver, options: AgentGraphOptions = {}) {
	const model = new ScriptedChatModel({});
	return new StateGraph(AgentState)
		.addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
		.addNode('tools', new ToolNode([lookup]))
		.addEdge(START, 'agent')
		.addConditionalEdges('agent', toolsCondition, ['tools', '__end__'])
		.addEdge('tools', 'agent')
		.compile({ checkpointer, interruptBefore: options.interruptBeforeTools ? ['tools'] : [] });
}

/** The agent graph as a node of a parent graph: its checkpoints live in a child namespace. */
export function buildNestedGraph(checkpointer: BaseCheckpointSaver) {
	return new StateGraph(AgentState)
		.addNode('assistant', buildAgentGraph())
		.addEdge(START, 'assistant')
		.compile({ checkpointer });
}

export function humanTurn(turn: number) {
	return { messages: [new HumanMessage({ id: `human-${turn}`, content: `Question number ${turn}?` })] };
}

/** UTF-8 bytes of the text a conversation holds: message contents and tool-call arguments. */
export function messageTextBytes(messages: readonly BaseMessage[]): number {
	let bytes = 0;
	for (const message of messages) {
		bytes += Buffer.byteLength(typeof message.content === 'string' ? message.content : JSON.stringify(message.content));
		for (const call of (message as AIMessage).tool_calls ?? []) bytes += Buffer.byteLength(JSON.stringify(call.args));
	}
	return bytes;
}
