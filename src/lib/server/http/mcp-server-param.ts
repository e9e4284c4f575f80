import { ApiError } from '../errors';

/** A `[server]` route parameter: a name mcp.json may give (letters, digits, _ and -), else BAD_REQUEST. */
export function parseMcpServerParam(value: string): string {
	if (!/^[A-Za-z0-9_-]{1,128}$/.test(value)) throw new ApiError('BAD_REQUEST', 'An MCP server name holds 1 to 128 letters, digits, _ and -');
	return value;
}
