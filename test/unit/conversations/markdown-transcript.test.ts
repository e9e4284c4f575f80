import { describe, expect, it } from 'vitest';
import { markdownTranscript } from '../../../src/lib/server/conversations/markdown-transcript';

const conversation = {
	id: 'c1',
	title: 'Title',
	createdAt: '2026-01-01T00:00:00.000Z',
	updatedAt: '2026-01-02T00:00:00.000Z',
	messageCount: 3,
	status: 'completed' as const
};

describe('markdownTranscript', () => {
	it('lays out user, assistant with tool calls, and tool results', () => {
		const md = markdownTranscript(conversation, [
			{ id: '1', role: 'user', content: 'hi' },
			{ id: '2', role: 'assistant', content: '', toolCalls: [{ id: 'k', name: 'echo', args: { a: 1 } }] },
			{ id: '3', role: 'tool', content: 'out', name: 'echo', toolCallId: 'k', status: 'success' },
			{ id: '4', role: 'assistant', content: 'Done.' }
		]);
		expect(md).toBe(
			[
				'# Title',
				'',
				'- Conversation / thread_id: `c1`',
				'- Created: 2026-01-01T00:00:00.000Z',
				'- Updated: 2026-01-02T00:00:00.000Z',
				'',
				'## User',
				'',
				'hi',
				'',
				'## Assistant',
				'',
				'> **Tool call** `echo` (k)',
				'>',
				'> ```json',
				'> {',
				'>   "a": 1',
				'> }',
				'> ```',
				'',
				'### Tool result: `echo` (success)',
				'',
				'```',
				'out',
				'```',
				'',
				'## Assistant',
				'',
				'Done.',
				''
			].join('\n')
		);
	});

	it('fences tool output that contains backticks so it cannot break out', () => {
		const md = markdownTranscript(conversation, [
			{ id: '3', role: 'tool', content: 'a ```\n# injected', name: 'fetch__fetch', status: 'success' }
		]);
		expect(md).toContain('````\na ```\n# injected\n````');
	});
});
