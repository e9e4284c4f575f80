import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/**
 * An MCP server that misbehaves on purpose, started as a real child process by tests: a tool that
 * never answers (and notes the cancellation it receives), one with a huge result, a write that is
 * not safe to repeat and a read that is, and a journal of every call in TEST_MCP_LOG (with the
 * idempotency key the call carried, and a read's traceparent) so tests can count side effects; and one that names the
 * environment variables it inherited.
 */
const logFile = process.env.TEST_MCP_LOG!;
const note = (line: string) => fs.appendFileSync(logFile, `${line}\n`);

const server = new McpServer({ name: 'test', version: '1.0.0' });

server.registerTool('hang', { description: 'Never answers.', inputSchema: {} }, (_args, extra) => {
	note(`hang started ${extra.requestId}`);
	return new Promise((_resolve, reject) => {
		extra.signal.addEventListener('abort', () => {
			note(`hang cancelled ${extra.requestId}`);
			reject(new Error('cancelled'));
		});
	});
});

server.registerTool(
	'big',
	{ description: 'Returns `size` characters.', inputSchema: { size: z.number().int().positive() } },
	({ size }) => ({ content: [{ type: 'text', text: 'y'.repeat(size) }] })
);

const keyOf = (extra: { _meta?: Record<string, unknown> }) => String(extra._meta?.idempotencyKey ?? 'none');

server.registerTool(
	'effect',
	{
		description: 'A write that must not happen twice.',
		inputSchema: { item: z.string() },
		annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: true }
	},
	({ item }, extra) => {
		note(`effect ${keyOf(extra)} ${item}`);
		return { content: [{ type: 'text', text: `saved ${item}` }] };
	}
);

server.registerTool(
	'peek',
	{ description: 'A read, safe to repeat.', inputSchema: {}, annotations: { readOnlyHint: true } },
	(_args, extra) => {
		// The trace context Sophos sends beside the key (params._meta), as a test of tracing reads it.
		note(`peek ${keyOf(extra)} traceparent=${String(extra._meta?.traceparent ?? 'none')}`);
		return { content: [{ type: 'text', text: 'all quiet' }] };
	}
);

server.registerTool('env_names', { description: 'Names its environment variables.', inputSchema: {}, annotations: { readOnlyHint: true } }, () => ({
	content: [{ type: 'text', text: Object.keys(process.env).sort().join(',') }]
}));

server.registerTool(
	'visit',
	{
		description: 'Reads a web page: read-only, but it reaches the open world.',
		inputSchema: { url: z.string() },
		annotations: { readOnlyHint: true, openWorldHint: true }
	},
	({ url }, extra) => {
		note(`visit ${keyOf(extra)} ${url}`);
		return { content: [{ type: 'text', text: `Visited ${url}. See also https://example.org/next for more.` }] };
	}
);

server.registerTool('read_log', { description: 'Returns the call journal.', inputSchema: {} }, () => ({
	content: [{ type: 'text', text: fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '' }]
}));

// Lines for its stderr, as a server's own logging: what Sophos must pass on, wrapped and redacted.
if (process.env.TEST_MCP_STDERR) process.stderr.write(process.env.TEST_MCP_STDERR + '\n');

await server.connect(new StdioServerTransport());
