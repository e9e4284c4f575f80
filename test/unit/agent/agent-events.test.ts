import { ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { AgentEvents, type AgentEvent, type StepWrite } from '../../../src/lib/server/agent/agent-events';

function collect(writes: StepWrite[]): AgentEvent[] {
	const steps = new AgentEvents();
	return [...writes.flatMap((w) => steps.of(w)), ...steps.end()];
}

const agent = (step: number) => ({ node: 'agent' as const, step, name: 'qwen3', messageId: `m${step}` });

describe('AgentEvents', () => {
	it('separates reasoning from tokens and traces enter, call, result and leave', () => {
		const events = collect([
			{ ...agent(1), pieces: [{ type: 'reasoning', text: 'hmm' }, { type: 'token', text: 'Let me look.' }] },
			{ ...agent(1), calls: [{ name: 'memory__read_graph', args: {}, id: 'call1', type: 'tool_call' }] },
			{ node: 'tools', step: 2, results: [new ToolMessage({ content: 'graph', name: 'memory__read_graph', tool_call_id: 'call1', status: 'error' })] },
			{ ...agent(3), pieces: [{ type: 'token', text: 'Done.' }] }
		]);
		expect(events).toEqual([
			{ type: 'trace', note: { step: 1, name: 'qwen3', node: 'agent', event: 'enter', data: { messageId: 'm1' } } },
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
			{ type: 'trace', note: { step: 3, name: 'qwen3', node: 'agent', event: 'enter', data: { messageId: 'm3' } } },
			{ type: 'token', text: 'Done.' },
			{ type: 'trace', note: { step: 3, name: 'qwen3', node: 'agent', event: 'leave' } }
		]);
	});

	it('emits nothing for an empty stream', () => {
		expect(collect([])).toEqual([]);
	});
});
