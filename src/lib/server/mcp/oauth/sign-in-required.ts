/** A remote MCP server refused Sophos for want of an OAuth sign-in (none yet, signed out, or a refresh that failed). */
export class SignInRequired extends Error {
	override name = 'SignInRequired';
	readonly code = 'MCP_SIGN_IN_REQUIRED';
	constructor(readonly server: string) {
		super(`MCP server "${server}" needs sign-in`);
	}
}
