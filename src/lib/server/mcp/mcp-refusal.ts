/**
 * The expected ways a prompt, resource or sign-in request to an MCP server is refused, as values:
 * the edge (http/run-refusal-error.ts) gives each its HTTP status, code and message. `said` is the
 * server's own text, already cut to a length fit to quote.
 */
export type McpRefusal =
	| { refused: 'mcp-server-unknown'; server: string }
	| { refused: 'mcp-not-oauth'; server: string }
	| { refused: 'mcp-sign-in-failed'; server: string; why: string }
	| { refused: 'prompt-server-unknown'; prompt: string }
	| { refused: 'prompt-unknown'; server: string; prompt: string }
	| { refused: 'prompt-argument-unknown'; prompt: string; argument: string }
	| { refused: 'prompt-argument-missing'; prompt: string; argument: string }
	| { refused: 'prompt-too-large'; prompt: string; length: number; maxChars: number }
	| { refused: 'resource-not-text'; server: string; uri: string; mimeType?: string }
	| { refused: 'resource-too-large'; server: string; uri: string; length: number; maxChars: number }
	| { refused: 'mcp-needs-sign-in'; server: string }
	| { refused: 'mcp-not-running'; server: string }
	| { refused: 'mcp-resource-not-found'; server: string; said: string }
	| { refused: 'mcp-method-not-found'; server: string; said: string }
	| { refused: 'mcp-invalid-params'; server: string; said: string }
	| { refused: 'mcp-timed-out'; server: string }
	| { refused: 'mcp-failed'; server: string; said: string };

/**
 * Carries a refusal out of the depth of a request (a content check inside the server's answer) to
 * the method that returns it; never leaves mcp/.
 */
export class McpRefused extends Error {
	constructor(readonly refusal: McpRefusal) {
		super(refusal.refused);
	}
}

type MessageOf = { [K in McpRefusal['refused']]: (r: Extract<McpRefusal, { refused: K }>) => string };

const MESSAGES: MessageOf = {
	'mcp-server-unknown': (r) => `No MCP server is named "${r.server}"`,
	'mcp-not-oauth': (r) => `MCP server "${r.server}" is not signed in to with OAuth by a person`,
	'mcp-sign-in-failed': (r) => `Signing in to "${r.server}" could not begin: ${r.why}`,
	'prompt-server-unknown': (r) => `No MCP server is named by the prompt "${r.prompt}"`,
	'prompt-unknown': (r) => `MCP server "${r.server}" has no prompt "${r.prompt}"`,
	'prompt-argument-unknown': (r) => `The prompt "${r.prompt}" takes no argument "${r.argument}"`,
	'prompt-argument-missing': (r) => `The prompt "${r.prompt}" needs the argument "${r.argument}"`,
	'prompt-too-large': (r) => `The prompt "${r.prompt}" gave ${r.length} characters, more than MCP_CONTENT_MAX_CHARS (${r.maxChars})`,
	'resource-not-text': (r) => `The resource ${r.uri} of "${r.server}" is binary${r.mimeType ? ` (${r.mimeType})` : ''}: only text resources can be read or attached`,
	'resource-too-large': (r) => `The resource ${r.uri} of "${r.server}" holds ${r.length} characters, more than MCP_CONTENT_MAX_CHARS (${r.maxChars})`,
	'mcp-needs-sign-in': (r) => `MCP server "${r.server}" needs sign-in: sign in to it from the sidebar, then try again`,
	'mcp-not-running': (r) => `MCP server "${r.server}" is not running; it is started again on its next use`,
	'mcp-resource-not-found': (r) => `MCP server "${r.server}": ${r.said}`,
	'mcp-method-not-found': (r) => `MCP server "${r.server}" refused the request: ${r.said}`,
	'mcp-invalid-params': (r) => `MCP server "${r.server}" refused the request: ${r.said}`,
	'mcp-timed-out': (r) => `MCP server "${r.server}" did not answer in time`,
	'mcp-failed': (r) => `MCP server "${r.server}" failed: ${r.said}`
};

/** What a person reads of a refusal: in an HTTP answer, and for a server a list could not reach. */
export function mcpRefusalMessage(r: McpRefusal): string {
	return (MESSAGES[r.refused] as (r: McpRefusal) => string)(r);
}
