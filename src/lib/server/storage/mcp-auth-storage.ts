/**
 * What Sophos keeps of its OAuth sign-in to one remote MCP server (mcp/oauth/): the client it
 * registered (or was given), its tokens and when the access token expires, each as the JSON the
 * oauth module wrote and parses again. Secrets: read only by mcp/oauth/, never answered or logged.
 */
export type McpAuthRecord = {
	client: string | null;
	tokens: string | null;
	/** ISO text; null when the authorization server gave no lifetime. */
	expiresAt: string | null;
};

/** A sign-in under way, found again by its `state` when the browser comes back to the callback. */
export type PendingSignIn = { server: string; verifier: string; redirectUri: string };

/** What a refresh under the lock decided: new tokens, nothing to do, or sign in again. */
export type TokenRefresh = { tokens: string; expiresAt: string | null } | 'keep' | 'forget';

export interface McpAuthStorage {
	get(server: string): Promise<McpAuthRecord | undefined>;
	saveClient(server: string, client: string, now: string): Promise<void>;
	saveTokens(server: string, tokens: string, expiresAt: string | null, now: string): Promise<void>;
	/** Sign-out (`tokens`), or a client the authorization server no longer knows (`all`); false when nothing was kept. */
	forget(server: string, what: 'tokens' | 'all'): Promise<boolean>;
	/** Remembers a sign-in begun, until `expiresAt`. */
	beginSignIn(state: string, pending: PendingSignIn, expiresAt: string): Promise<void>;
	/**
	 * Takes the sign-in of `server` that `state` names, once: a second take of the same state (a
	 * replayed callback), an unknown or expired one, or one begun for another server is undefined,
	 * and leaves every sign-in as it was. Expired ones are dropped on the way.
	 */
	takeSignIn(state: string, server: string, now: string): Promise<PendingSignIn | undefined>;
	/**
	 * Runs `decide` on the server's record while holding its refresh lock, across every process on the
	 * database, and writes what it decides before the lock is let go: a second instance that wanted
	 * to refresh the same token waits, then sees the new one and keeps it. Returns the record after.
	 */
	refreshUnderLock(server: string, now: string, decide: (current: McpAuthRecord | undefined) => Promise<TokenRefresh>): Promise<McpAuthRecord | undefined>;
}
