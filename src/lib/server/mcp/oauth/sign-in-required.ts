/** A remote MCP server refused Sophos for want of an OAuth sign-in (none yet, signed out, or a refresh that failed). */
export class SignInRequired extends Error {
	override name = 'SignInRequired';
	readonly code = 'MCP_SIGN_IN_REQUIRED';
	constructor(readonly server: string) {
		super(`MCP server "${server}" needs sign-in`);
	}
}

/**
 * A remote MCP server still refused a request for want of scope after Sophos asked a person to sign
 * in again for it that many times (scope-challenge.ts StepUps): another sign-in would not satisfy it.
 */
export class ScopeRefused extends Error {
	override name = 'ScopeRefused';
	readonly code = 'MCP_SCOPE_REFUSED';
	constructor(
		readonly server: string,
		readonly scope: string | undefined,
		signIns: number
	) {
		super(`MCP server "${server}" refused the request for want of scope${scope ? ` "${scope}"` : ''}, after ${signIns} sign-ins that asked for it`);
	}
}
