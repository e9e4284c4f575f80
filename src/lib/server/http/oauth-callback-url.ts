/**
 * Pure. The URL a remote MCP server's authorization server sends the browser back to after a
 * sign-in: on PUBLIC_ORIGIN behind a proxy, else on the host the sign-in was begun from, over http,
 * the only scheme Sophos itself speaks (adapter-node's request URL guesses https unless told). It
 * must be registered with pre-registered clients.
 */
export function oauthCallbackUrl(server: string, publicOrigin: string | undefined, requestUrl: URL): string {
	return `${publicOrigin ?? `http://${requestUrl.host}`}/api/mcp/${encodeURIComponent(server)}/callback`;
}

/** Exactly the callback's path, as it arrives (request-guard.ts matches raw paths). */
export const OAUTH_CALLBACK_PATH = /^\/api\/mcp\/[A-Za-z0-9_-]+\/callback$/;
