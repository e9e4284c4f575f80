/** Pure. Which tools run at once, wait for a person, or are never offered (TOOL_APPROVAL, mcp.json). */

export type ApprovalMode = 'auto' | 'ask' | 'deny';

/**
 * TOOL_APPROVAL: `writes` asks before any tool that does not declare itself read-only (MCP's
 * readOnlyHint), `all` before every tool, `none` before none.
 */
export type DefaultApproval = 'writes' | 'all' | 'none';

/** mcp.json `approval`: one mode for every tool of the server, or per tool name (unlisted: the default). */
export type ApprovalSetting = ApprovalMode | Record<string, ApprovalMode> | undefined;

export function resolveApproval(input: {
	setting: ApprovalSetting;
	tool: string;
	readOnly: boolean;
	fallback: DefaultApproval;
}): ApprovalMode {
	const configured = typeof input.setting === 'object' ? input.setting[input.tool] : input.setting;
	if (configured) return configured;
	if (input.fallback === 'none') return 'auto';
	if (input.fallback === 'all') return 'ask';
	return input.readOnly ? 'auto' : 'ask';
}
