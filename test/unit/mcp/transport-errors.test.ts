import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { isTransportGone, ToolServerDown } from '../../../src/lib/server/mcp/transport-errors';

const errno = (code: string) => Object.assign(new Error('write failed'), { code });

describe('isTransportGone', () => {
	it.each([
		['the supervisor knew the server was down', new ToolServerDown('MCP server "x" is not connected'), true],
		['the SDK closed the connection under a call in flight', new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), true],
		['a stdio pipe that broke', errno('EPIPE'), true],
		['an HTTP server that went away', new TypeError('fetch failed', { cause: errno('ECONNREFUSED') }), true],
		['an HTTP server that restarted and forgot our session', new StreamableHTTPError(404, 'Error POSTing to endpoint: Session not found'), true],
		['an HTTP server that refused our token', new StreamableHTTPError(401, 'Error POSTing to endpoint: unauthorized'), false],
		['a tool that timed out', new McpError(ErrorCode.RequestTimeout, 'Request timed out'), false],
		['a tool that failed on its own', new McpError(ErrorCode.InternalError, 'connection closed by the database'), false],
		['an error whose text only sounds like it', new Error('not connected: ECONNRESET EPIPE transport closed'), false],
		['something that is not an error', 'EPIPE', false]
	])('%s', (_name, error, gone) => {
		expect(isTransportGone(error)).toBe(gone);
	});
});
