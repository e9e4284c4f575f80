import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../errors';
import { SignInRequired } from './oauth/sign-in-required';
import type { ServerSupervisor } from './server-supervisor';
import { isTransportGone } from './transport-errors';

/** What of a server's own error message is quoted back: it is the server's text, untrusted. */
const QUOTED_MAX = 300;

/** MCP's code for a resource URI the server does not have (the spec's `-32002`). */
const RESOURCE_NOT_FOUND = -32002;

const quoted = (text: string) => (text.length > QUOTED_MAX ? `${text.slice(0, QUOTED_MAX)}…` : text);

/**
 * What a failed prompt or resource request answers, classified by the error's type and MCP code:
 * a server that is not up, or whose connection turned out gone (it is marked down, to be restarted
 * on its next use), is MCP_SERVER_UNAVAILABLE; the server's own refusal of what was asked is
 * NOT_FOUND or BAD_REQUEST; any other error it answered, or its silence past the timeout,
 * MCP_REQUEST_FAILED. Anything else is not an MCP failure and is rethrown.
 */
export function classifyMcpRequestError(e: unknown, server: ServerSupervisor): ApiError {
	if (e instanceof ApiError) return e;
	if (e instanceof SignInRequired) {
		return new ApiError('MCP_SERVER_UNAVAILABLE', `MCP server "${server.name}" needs sign-in: sign in to it from the sidebar, then try again`);
	}
	if (isTransportGone(e)) {
		server.markDown(e instanceof Error ? e.message : String(e));
		return new ApiError('MCP_SERVER_UNAVAILABLE', `MCP server "${server.name}" is not running; it is started again on its next use`);
	}
	if (e instanceof McpError) {
		const said = quoted(e.message);
		if (e.code === RESOURCE_NOT_FOUND) return new ApiError('NOT_FOUND', `MCP server "${server.name}": ${said}`);
		if (e.code === ErrorCode.InvalidParams || e.code === ErrorCode.MethodNotFound) {
			return new ApiError(e.code === ErrorCode.MethodNotFound ? 'NOT_FOUND' : 'BAD_REQUEST', `MCP server "${server.name}" refused the request: ${said}`);
		}
		if (e.code === ErrorCode.RequestTimeout) return new ApiError('MCP_REQUEST_FAILED', `MCP server "${server.name}" did not answer in time`);
		return new ApiError('MCP_REQUEST_FAILED', `MCP server "${server.name}" failed: ${said}`);
	}
	throw e;
}
