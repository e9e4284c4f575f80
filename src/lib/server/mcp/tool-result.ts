import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Pure: what of an MCP tool result enters the thread. Tool output is untrusted text for the model. */

export type ToolOutcome = { status: 'success' | 'error'; text: string };

export function capText(text: string, max: number): string {
	if (text.length <= max) return text;
	return `${text.slice(0, max)}\n\n[Result cut at ${max} of ${text.length} characters (TOOL_RESULT_MAX_CHARS).]`;
}

/** Text parts are kept; other parts are named, not inlined, so no binary reaches the model. */
export function toToolOutcome(result: CallToolResult, maxChars: number): ToolOutcome {
	const text = (result.content ?? [])
		.map((part) => (part.type === 'text' ? part.text : `[${part.type} content omitted]`))
		.join('\n');
	return { status: result.isError ? 'error' : 'success', text: capText(text, maxChars) };
}
