import { AIMessageChunk, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { agentEvents, type AgentEvent } from '../../src/lib/server/agent/agent-events';

async function collect(items: [BaseMessage, Record<string, unknown>][]): Promise<AgentEvent[]> {
	async function* source() {
		yield* items;
	}
	const out: AgentEvent[] = [];
	for await (const e of agentEvents(source())) out.push(e);
	return out;
}

const agent = (step: number) => ({ langgraph_node: 'agent', langgraph_step: step, ls_model_name: 'qwen3' });
const tools = (step: number) => ({ langgraph_node: 'tools', langgraph_step: step });

describe('agentEvents', () => {
	it('separates reasoning from tokens and traces enter, call, result and leave', async () => {
		const events = await collect([
			[new AIMessageChunk({ content: '', additional_kwargs: { reasoning_content: 'hmm' } }), agent(1)],
			[new AIMessageChunk({ content: 'Let me look.' }), agent(1)],
			[
				new AIMessageChunk({
					content: '',
					tool_call_chunks: [{ name: 'memory__read_graph', args: '{}', id: 'call1', index: 0, type: 'tool_call_chunk' }]
				}),
				agent(1)
			],
			[new ToolMessage({ content: 'graph', name: 'memory__read_graph', tool_call_id: 'call1', status: 'error' }), tools(2)],
			[new AIMessageChunk({ content: 'Done.' }), agent(3)]
		]);
		expect(events).toEqual([
			{ type: 'trace', note: { step: 1, name: 'qwen3', node: 'agent', event: 'enter' } },
			{ type: 'reasoning', text: 'hmm' },
			{ type: 'token', text: 'Let me look.' },
			{
				type: 'trace',
				note: {
					step: 1,
					name: 'memory__read_graph',
					node: 'tools',
					event: 'call',
					data: { name: 'memory__read_graph', arguments: {}, tool_call_id: 'call1' }
				}
			},
			{ type: 'trace', note: { step: 1, name: 'qwen3', node: 'agent', event: 'leave' } },
			{ type: 'trace', note: { step: 2, name: 'memory__read_graph', node: 'tools', event: 'enter' } },
			{
				type: 'trace',
				note: {
					step: 2,
					name: 'memory__read_graph',
					node: 'tools',
					event: 'result',
					data: { name: 'memory__read_graph', tool_call_id: 'call1', status: 'error', result: 'graph' }
				}
			},
			{ type: 'trace', note: { step: 2, name: 'memory__read_graph', node: 'tools', event: 'leave' } },
			{ type: 'trace', note: { step: 3, name: 'qwen3', node: 'agent', event: 'enter' } },
			{ type: 'token', text: 'Done.' },
			{ type: 'trace', note: { step: 3, name: 'qwen3', node: 'agent', event: 'leave' } }
		]);
	});

	it('emits nothing for an empty stream', async () => {
		expect(await collect([])).toEqual([]);
	});
});
