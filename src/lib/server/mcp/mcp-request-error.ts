import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpRefused, type McpRefusal } from './mcp-refusal';
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
export function classifyMcpRequestError(e: unknown, server: ServerSupervisor): McpRefusal {
	if (e instanceof McpRefused) return e.refusal;
	if (e instanceof SignInRequired) return { refused: 'mcp-needs-sign-in', server: server.name };
	if (isTransportGone(e)) {
		server.markDown(e instanceof Error ? e.message : String(e));
		return { refused: 'mcp-not-running', server: server.name };
	}
	if (e instanceof McpError) {
		const said = quoted(e.message);
		if (e.code === RESOURCE_NOT_FOUND) return { refused: 'mcp-resource-not-found', server: server.name, said };
		if (e.code === ErrorCode.MethodNotFound) return { refused: 'mcp-method-not-found', server: server.name, said };
		if (e.code === ErrorCode.InvalidParams) return { refused: 'mcp-invalid-params', server: server.name, said };
		if (e.code === ErrorCode.RequestTimeout) return { refused: 'mcp-timed-out', server: server.name };
		return { refused: 'mcp-failed', server: server.name, said };
	}
	throw e;
}
