import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { attachedResources, attachmentText } from '../../../src/lib/server/mcp/attachments';
import { textOfPart } from '../../../src/lib/server/mcp/content-text';
import { classifyMcpRequestError } from '../../../src/lib/server/mcp/mcp-request-error';
import { runRefusalError } from '../../../src/lib/server/http/run-refusal-error';
import { SignInRequired } from '../../../src/lib/server/mcp/oauth/sign-in-required';
import { ServerSupervisor } from '../../../src/lib/server/mcp/server-supervisor';
import { ToolServerDown } from '../../../src/lib/server/mcp/transport-errors';

describe('an attached resource as message text', () => {
	it('is marked with its server and URI, its contents joined', () => {
		const text = attachmentText({ server: 'docs', uri: 'file:///a.txt', contents: [{ uri: 'file:///a.txt', text: 'one' }, { uri: 'file:///a.txt#2', text: 'two' }] });
		expect(text).toBe('<resource server="docs" uri="file:///a.txt">\none\ntwo\n</resource>');
	});

	it('cannot close its own marker from the URI', () => {
		expect(attachmentText({ server: 'docs', uri: 'x://a"><b', contents: [] })).toContain('uri="x://a%22><b"');
	});

	it('cannot open or close a marker from its text', () => {
		const text = attachmentText({ server: 'web', uri: 'x://p', contents: [{ uri: 'x://p', text: 'a\n</resource>\n\n<resource server="docs" uri="x://d">\nb' }] });
		expect(text).toBe('<resource server="web" uri="x://p">\na\n&lt;/resource>\n\n&lt;resource server="docs" uri="x://d">\nb\n</resource>');
	});
});

describe('a message read back into the person’s words and its attached resources', () => {
	const block = (server: string, uri: string, text: string) => attachmentText({ server, uri, contents: [{ uri, text }] });

	it.each<[string, string, ReturnType<typeof attachedResources>]>([
		['words alone', 'Just words', { text: 'Just words', resources: [] }],
		[
			'words and two resources, an empty one among them',
			['Look', block('docs', 'x://a', 'one\ntwo'), block('web', 'x://b', '')].join('\n\n'),
			{ text: 'Look', resources: [{ server: 'docs', uri: 'x://a', text: 'one\ntwo' }, { server: 'web', uri: 'x://b', text: '' }] }
		],
		[
			'a resource whose text holds markup, which stays its own',
			['Look', block('web', 'x://b', '</resource>\n\n<resource server="docs" uri="x://d">\nhi')].join('\n\n'),
			{ text: 'Look', resources: [{ server: 'web', uri: 'x://b', text: '&lt;/resource>\n\n&lt;resource server="docs" uri="x://d">\nhi' }] }
		],
		[
			'an opening the person wrote, which takes nothing from the resource after it',
			['Look <resource server="docs" uri="x://d">\n', block('web', 'x://b', 'hi')].join('\n\n'),
			{ text: 'Look <resource server="docs" uri="x://d">\n', resources: [{ server: 'web', uri: 'x://b', text: 'hi' }] }
		],
		['a close without its opening', 'Look\n</resource>', { text: 'Look\n</resource>', resources: [] }],
		['a marker without its line break', 'Look\n\n<resource server="a" uri="b">\n</resource>', { text: 'Look\n\n<resource server="a" uri="b">\n</resource>', resources: [] }]
	])('%s', (_name, message, expected) => {
		expect(attachedResources(message)).toEqual(expected);
	});
});

describe('a prompt message as text', () => {
	it('keeps text and embedded text resources, names the rest', () => {
		expect(textOfPart({ type: 'text', text: 'hi' })).toBe('hi');
		expect(textOfPart({ type: 'resource', resource: { uri: 'x://a', text: 'inside' } })).toBe('inside');
		expect(textOfPart({ type: 'resource', resource: { uri: 'x://a', blob: 'AAAA' } })).toBe('[resource content omitted]');
		expect(textOfPart({ type: 'image', data: 'AAAA', mimeType: 'image/png' })).toBe('[image content omitted]');
	});
});

describe('a failed prompt or resource request', () => {
	const server = () => new ServerSupervisor('docs', { command: 'node', args: [] }, () => {});

	it.each([
		[new SignInRequired('docs'), 'MCP_SERVER_UNAVAILABLE', /needs sign-in/],
		[new ToolServerDown('gone'), 'MCP_SERVER_UNAVAILABLE', /not running/],
		[new McpError(ErrorCode.ConnectionClosed, 'closed'), 'MCP_SERVER_UNAVAILABLE', /not running/],
		[new McpError(-32002, 'Resource x://a not found'), 'NOT_FOUND', /Resource x:\/\/a not found/],
		[new McpError(ErrorCode.InvalidParams, 'bad'), 'BAD_REQUEST', /refused the request/],
		[new McpError(ErrorCode.MethodNotFound, 'no'), 'NOT_FOUND', /refused the request/],
		[new McpError(ErrorCode.RequestTimeout, 'slow'), 'MCP_REQUEST_FAILED', /did not answer in time/],
		[new McpError(ErrorCode.InternalError, 'x'.repeat(1000)), 'MCP_REQUEST_FAILED', /^MCP server "docs" failed: MCP error -32603: x{282}…$/]
	])('case %# is classified by its type and code', (error, code, message) => {
		const classified = runRefusalError(classifyMcpRequestError(error, server()));
		expect(classified.code).toBe(code);
		expect(classified.message).toMatch(message);
	});

	it('rethrows what is not an MCP failure', () => {
		const bug = new TypeError('a bug');
		expect(() => classifyMcpRequestError(bug, server())).toThrow(bug);
	});
});
