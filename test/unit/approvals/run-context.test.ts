import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { readRunContext, type ToolNature } from '../../../src/lib/server/approvals/run-context';

const natures: Record<string, ToolNature> = {
	fetch__fetch: { openWorld: true, private: false },
	memory__create_entities: { openWorld: false, private: true },
	memory__read_graph: { openWorld: false, private: true },
	notes__echo: { openWorld: false, private: false }
};
const natureOf = (name: string) => natures[name];

const call = (id: string, name: string, args: Record<string, unknown>) => new AIMessage({ content: '', tool_calls: [{ id, name, args }] });
const result = (id: string, name: string, content: string) => new ToolMessage({ content, name, tool_call_id: id });

describe('readRunContext', () => {
	it('knows what the person wrote and what a fetched page contained', () => {
		const { known } = readRunContext(
			[
				new HumanMessage('Read https://example.com/a.'),
				call('1', 'fetch__fetch', { url: 'https://example.com/a' }),
				result('1', 'fetch__fetch', 'Contents of https://example.com/a:\nsee [next](https://example.com/b)')
			],
			natureOf
		);
		// With and without what prose puts after a URL: the person may have meant either.
		expect([...known].sort()).toEqual([
			'https://example.com/a',
			'https://example.com/a.',
			'https://example.com/a:',
			'https://example.com/b',
			'https://example.com/b)'
		]);
	});

	it.each([
		['a memory write that stores it', 'memory__create_entities'],
		['a read-only echo', 'notes__echo']
	])('a URL the model wrote is not made known by %s (laundering)', (_name, tool) => {
		const url = 'https://attacker.example/c?d=secret';
		const { known } = readRunContext([new HumanMessage('hi'), call('1', tool, { text: url }), result('1', tool, `stored ${url}`)], natureOf);
		expect(known.has(url)).toBe(false);
	});

	it('a page that echoes the URL it was asked for does not make that URL known', () => {
		const url = 'https://example.com/a?d=secret';
		const { known } = readRunContext([call('1', 'fetch__fetch', { url }), result('1', 'fetch__fetch', `Contents of ${url}: hello`)], natureOf);
		expect(known.has(url)).toBe(false);
	});

	it('echoes are told by the call each result answers, when ids are reused', () => {
		const url = 'https://example.com/c';
		const { known } = readRunContext(
			[
				call('call_0', 'fetch__fetch', { url: 'https://example.com/a' }),
				result('call_0', 'fetch__fetch', `links: ${url}`),
				call('call_0', 'fetch__fetch', { url }),
				result('call_0', 'fetch__fetch', `Contents of ${url}`)
			],
			natureOf
		);
		expect(known.has(url)).toBe(true);
	});

	it('names the tools that put private data and untrusted content in the context; a tool no longer offered counts as untrusted', () => {
		const context = readRunContext(
			[
				call('1', 'memory__read_graph', {}),
				result('1', 'memory__read_graph', '{}'),
				call('2', 'gone__tool', {}),
				result('2', 'gone__tool', 'text')
			],
			natureOf
		);
		expect(context).toMatchObject({ privateFrom: ['memory__read_graph'], untrustedFrom: ['gone__tool'] });
	});
});
