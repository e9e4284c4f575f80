import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** A call found its server down: it was never started, failed, or its connection closed earlier. */
export class ToolServerDown extends Error {
	override name = 'ToolServerDown';
}

/** errno codes of a stdio pipe or an HTTP connection that is gone. */
const GONE_ERRNOS = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ENOTCONN', 'UND_ERR_SOCKET']);

function errnoOf(e: unknown): string | undefined {
	for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
		const code = (c as { code?: unknown }).code;
		if (typeof code === 'string') return code;
	}
	return undefined;
}

/**
 * Pure. Whether a failed call means the server's transport is gone, so the supervisor restarts it
 * on its next use: our own knowledge that it was down, the SDK's ConnectionClosed (every call in
 * flight when the transport closes), the errno of the pipe or socket it wrote to, or an HTTP
 * server's 404 for our session: it restarted and forgot it, and the MCP spec says a client must
 * then start a new session (a tool host restarted under a running Sophos, issue 14).
 */
export function isTransportGone(e: unknown): boolean {
	if (e instanceof ToolServerDown) return true;
	if (e instanceof McpError) return e.code === ErrorCode.ConnectionClosed;
	if (e instanceof StreamableHTTPError) return e.code === 404;
	const errno = errnoOf(e);
	return errno !== undefined && GONE_ERRNOS.has(errno);
}
