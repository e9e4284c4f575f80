import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
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

// Asks the person during the call (MCP elicitation) and answers with what came back, noting it.
server.registerTool(
	'ask',
	{ description: 'Asks the person their name and age.', inputSchema: {}, annotations: { readOnlyHint: true } },
	async (_args, extra) => {
		note(`ask started ${keyOf(extra)}`);
		const answer = await extra.sendRequest(
			{
				method: 'elicitation/create',
				params: {
					mode: 'form',
					message: 'Who is asking?',
					requestedSchema: {
						type: 'object',
						properties: {
							name: { type: 'string', title: 'Name', minLength: 1 },
							age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150 },
							tea: { type: 'boolean', title: 'Tea?' },
							colour: { type: 'string', title: 'Colour', enum: ['red', 'green'], enumNames: ['Red', 'Green'] }
						},
						required: ['name']
					}
				}
			},
			ElicitResultSchema
		);
		note(`ask answered ${JSON.stringify(answer)}`);
		return { content: [{ type: 'text', text: `The person answered ${JSON.stringify(answer)}` }] };
	}
);

// Asks the person to open a page (URL-mode elicitation) at TEST_MCP_FORM_URL.
server.registerTool('ask_url', { description: 'Asks the person to open a form page.', inputSchema: {}, annotations: { readOnlyHint: true } }, async (_args, extra) => {
	const answer = await extra.sendRequest(
		{ method: 'elicitation/create', params: { mode: 'url', message: 'Fill in the form on our site', elicitationId: 'form-1', url: process.env.TEST_MCP_FORM_URL ?? 'http://127.0.0.1:9/form' } },
		ElicitResultSchema
	);
	note(`ask_url answered ${JSON.stringify(answer)}`);
	return { content: [{ type: 'text', text: `The person answered ${JSON.stringify(answer)}` }] };
});

server.registerTool('read_log', { description: 'Returns the call journal.', inputSchema: {} }, () => ({
	content: [{ type: 'text', text: fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '' }]
}));

await server.connect(new StdioServerTransport());
