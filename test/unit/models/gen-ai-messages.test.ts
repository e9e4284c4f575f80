import { describe, expect, it } from 'vitest';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { genAiMessages } from '../../../src/lib/server/models/gen-ai-messages';

describe('genAiMessages', () => {
	it('writes each message as the GenAI conventions do: its role and its text, tool call and tool response parts', () => {
		const messages = [
			new SystemMessage('Be brief.'),
			new HumanMessage('save a'),
			new AIMessage({ content: 'Saving.', tool_calls: [{ id: 'call-1', name: 'test__effect', args: { item: 'a' } }] }),
			new AIMessage({ content: '', tool_calls: [{ name: 'test__peek', args: {} }] }),
			new ToolMessage({ content: 'saved', tool_call_id: 'call-1' }),
			new HumanMessage({ content: [{ type: 'text', text: 'two ' }, { type: 'text', text: 'blocks' }] })
		];
		expect(genAiMessages(messages)).toEqual([
			{ role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
			{ role: 'user', parts: [{ type: 'text', content: 'save a' }] },
			{
				role: 'assistant',
				parts: [
					{ type: 'text', content: 'Saving.' },
					{ type: 'tool_call', id: 'call-1', name: 'test__effect', arguments: { item: 'a' } }
				]
			},
			{ role: 'assistant', parts: [{ type: 'tool_call', id: null, name: 'test__peek', arguments: {} }] },
			{ role: 'tool', parts: [{ type: 'tool_call_response', id: 'call-1', response: 'saved' }] },
			{ role: 'user', parts: [{ type: 'text', content: 'two blocks' }] }
		]);
	});
});
