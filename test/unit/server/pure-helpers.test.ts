import { describe, expect, it } from 'vitest';
import { createToolFilter } from '../../../src/lib/server/mcp/tool-filter';
import { capText } from '../../../src/lib/server/mcp/tool-result';
import { modelIsListed, OllamaProvider } from '../../../src/lib/server/models/ollama-provider';
import { classifyRunError } from '../../../src/lib/server/runs/classify-run-error';
import { GraphRecursionError } from '@langchain/langgraph';
import { titleFromMessage } from '../../../src/lib/server/storage/conversation-records';

describe('titleFromMessage', () => {
	it('takes the first line, cut at 50 characters with "..."', () => {
		expect(titleFromMessage('  Hello world\nsecond line')).toBe('Hello world');
		expect(titleFromMessage('x'.repeat(50))).toBe('x'.repeat(50));
		expect(titleFromMessage('x'.repeat(51))).toBe(`${'x'.repeat(50)}...`);
		expect(titleFromMessage('   \n  ')).toBe('New Conversation');
	});
});

describe('tool filter (MCP_TOOLS_ALLOW / MCP_TOOLS_DENY)', () => {
	it('offers everything by default', () => expect(createToolFilter()('memory__read_graph')).toBe(true));
	it('allows by glob and denies by glob, deny winning', () => {
		const offered = createToolFilter(['memory__*', 'fetch__fetch'], ['memory__delete_*']);
		expect(offered('memory__read_graph')).toBe(true);
		expect(offered('memory__delete_entities')).toBe(false);
		expect(offered('fetch__fetch')).toBe(true);
		expect(offered('other__fetch')).toBe(false);
	});
	it('treats regex characters in names literally', () => {
		expect(createToolFilter(['a.b'])('axb')).toBe(false);
		expect(createToolFilter(['a?b'])('axb')).toBe(true);
	});
});

describe('capText (TOOL_RESULT_MAX_CHARS)', () => {
	it('keeps short text and cuts long text with a note', () => {
		expect(capText('short', 10)).toBe('short');
		const cut = capText('x'.repeat(25), 10);
		expect(cut.startsWith('x'.repeat(10) + '\n\n[Result cut at 10 of 25 characters')).toBe(true);
	});
});

describe('modelIsListed', () => {
	it('matches exactly, with an implicit :latest', () => {
		expect(modelIsListed(['qwen3:latest'], 'qwen3')).toBe(true);
		expect(modelIsListed(['qwen3:8b'], 'qwen3:8b')).toBe(true);
		expect(modelIsListed(['qwen3-coder:latest', 'myqwen3:latest'], 'qwen3')).toBe(false);
		expect(modelIsListed(['qwen3:latest'], 'qwen3:8b')).toBe(false);
	});
});

describe('error classification', () => {
	const host = 'http://127.0.0.1:11434';
	const ollama = new OllamaProvider({ host, think: false, fetch });
	const classifyModelError = (e: unknown, _host: string, model: string) => ollama.classifyError(e, model);
	it('tells a missing model, an unreachable server and other failures apart', () => {
		const notFound = Object.assign(new Error('model "qwen3" not found, try pulling it first'), { status_code: 404 });
		expect(classifyModelError(notFound, host, 'qwen3').code).toBe('MODEL_UNAVAILABLE');
		const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
		expect(classifyModelError(refused, host, 'qwen3')).toMatchObject({ code: 'MODEL_UNREACHABLE' });
		expect(classifyModelError(new Error('bad gateway'), host, 'qwen3').code).toBe('AGENT_FAILURE');
		expect(classifyRunError(new GraphRecursionError('too deep')).code).toBe('RECURSION_LIMIT');
		expect(classifyRunError('weird').message).toBe('weird');
	});
});
