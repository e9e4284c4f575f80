import { ApiError } from '../errors';

/** `server__tool`, as the model names a tool: a server name (mcp-config.ts) and the server's own tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}__[A-Za-z0-9_.-]{1,128}$/;

export function parseToolName(value: string | undefined): string {
	if (!value || !TOOL_NAME.test(value)) throw new ApiError('BAD_REQUEST', 'Invalid tool name: expected server__tool');
	return value;
}
