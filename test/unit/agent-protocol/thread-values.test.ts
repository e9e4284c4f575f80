import { createHash } from 'node:crypto';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../../src/lib/protocol';
import { ASSISTANT_ID, isAssistantId } from '../../../src/lib/server/agent-protocol/assistant';
import {
	approvalInterrupt,
	interruptIdOf,
	messageDictOfMessage,
	threadValuesOf
} from '../../../src/lib/server/agent-protocol/thread-values';
import { recordModelCall } from '../../../src/lib/server/models/model-call';
import { toMessageDtos } from '../../../src/lib/server/agent/messages';

function approval(toolCallId: string, tool: string, args: Record<string, unknown>): PendingApproval {
	return {
		toolCallId,
		tool,
		args,
		reason: { kind: 'policy', message: `${tool} needs approval` },
		requestedAt: '2026-01-01T00:00:00.000Z',
		expiresAt: '2026-01-01T01:00:00.000Z'
	};
}

describe('thread values', () => {
	it('gives each shown message as a LangChain dict with its id, tool calls, reasoning and usage', () => {
		const answer = recordModelCall(
			new AIMessage({
				id: 'a1',
				content: 'Looking it up.',
				additional_kwargs: { reasoning_content: 'The user wants the weather.' },
				tool_calls: [{ id: 'call-1', name: 'web__fetch', args: { url: 'https://example.com' } }]
			}),
			{ model: 'ollama/qwen3', run: 'r1', usage: { inputTokens: 12, outputTokens: 5, durationMs: 40 } }
		);
		const messages = [
			new SystemMessage({ id: 's', content: 'never shown' }),
			new HumanMessage({ id: 'h1', content: 'Weather?' }),
			answer,
			new ToolMessage({ id: 't1', content: 'Sunny', tool_call_id: 'call-1', name: 'web__fetch', status: 'error' })
		];
		const values = threadValuesOf(toMessageDtos(messages), []);
		expect(values).toEqual({
			messages: [
				{ type: 'human', id: 'h1', content: 'Weather?', additional_kwargs: {}, response_metadata: {} },
				{
					type: 'ai',
					id: 'a1',
					content: 'Looking it up.',
					additional_kwargs: { reasoning_content: 'The user wants the weather.' },
					response_metadata: { model_name: 'ollama/qwen3' },
					tool_calls: [{ id: 'call-1', name: 'web__fetch', args: { url: 'https://example.com' }, type: 'tool_call' }],
					invalid_tool_calls: [],
					usage_metadata: { input_tokens: 12, output_tokens: 5, total_tokens: 17 }
				},
				{
					type: 'tool',
					id: 't1',
					content: 'Sunny',
					name: 'web__fetch',
					tool_call_id: 'call-1',
					status: 'error',
					additional_kwargs: {},
					response_metadata: {}
				}
			]
		});
		expect(values).not.toHaveProperty('__interrupt__');
	});

	it('leaves usage_metadata out when the provider did not give both counts', () => {
		const answer = recordModelCall(new AIMessage({ id: 'a', content: 'x' }), {
			model: 'openai/m',
			run: 'r',
			usage: { outputTokens: 3 }
		});
		expect(messageDictOfMessage(answer)).not.toHaveProperty('usage_metadata');
		expect(messageDictOfMessage(new SystemMessage('s'))).toBeNull();
	});

	it('shows waiting calls as one interrupt in the HITL schema, snake_case and camelCase, in the order asked', () => {
		const approvals = [approval('c1', 'memory__write', { k: 1 }), approval('c2', 'effect__do', {})];
		const values = threadValuesOf([], approvals);
		const interrupt = values.__interrupt__![0]!;
		expect(interrupt.id).toBe(interruptIdOf(approvals));
		expect(interrupt.value.action_requests).toEqual([
			{ name: 'memory__write', args: { k: 1 }, description: 'memory__write needs approval' },
			{ name: 'effect__do', args: {}, description: 'effect__do needs approval' }
		]);
		expect(interrupt.value.actionRequests).toEqual(interrupt.value.action_requests);
		expect(interrupt.value.review_configs[1]).toEqual({
			action_name: 'effect__do',
			actionName: 'effect__do',
			allowed_decisions: ['approve', 'edit', 'reject'],
			allowedDecisions: ['approve', 'edit', 'reject']
		});
		expect(interrupt.value.reviewConfigs).toEqual(interrupt.value.review_configs);
	});

	it('gives another interrupt id once other calls wait, the same while the same ones do', () => {
		const a = [approval('c1', 't', {})];
		expect(interruptIdOf(a)).toBe(interruptIdOf([approval('c1', 't', { other: true })]));
		expect(interruptIdOf(a)).not.toBe(interruptIdOf([approval('c2', 't', {})]));
		expect(interruptIdOf([approval('a', 't', {}), approval('bc', 't', {})])).not.toBe(
			interruptIdOf([approval('ab', 't', {}), approval('c', 't', {})])
		);
		expect(approvalInterrupt([])).toBeUndefined();
	});
});

describe('the assistant', () => {
	it('has the id LangGraph derives for the graph "agent" (uuid v5 in the URL namespace)', () => {
		const namespace = Buffer.from('6ba7b8219dad11d180b400c04fd430c8', 'hex');
		const bytes = createHash('sha1').update(namespace).update('agent').digest().subarray(0, 16);
		bytes[6] = (bytes[6]! & 0x0f) | 0x50;
		bytes[8] = (bytes[8]! & 0x3f) | 0x80;
		const hex = bytes.toString('hex');
		const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
		expect(ASSISTANT_ID).toBe(uuid);
		expect(isAssistantId('agent')).toBe(true);
		expect(isAssistantId(ASSISTANT_ID.toUpperCase())).toBe(true);
		expect(isAssistantId('other')).toBe(false);
	});
});
