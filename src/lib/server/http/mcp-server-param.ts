import { McpServerNameSchema } from '../../protocol';
import { ApiError } from '../errors';

/** A `[server]` route parameter: a name mcp.json may give (letters, digits, _ and -), else BAD_REQUEST. */
export function parseMcpServerParam(value: string): string {
	const parsed = McpServerNameSchema.safeParse(value);
	if (!parsed.success) throw new ApiError('BAD_REQUEST', parsed.error.issues[0]!.message);
	return parsed.data;
}
