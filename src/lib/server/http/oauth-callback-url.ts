/**
 * Pure. The URL a remote MCP server's authorization server sends the browser back to after a
 * sign-in: on PUBLIC_ORIGIN behind a proxy (the request's own origin is then the proxy's inside
 * view), else on the origin the sign-in was begun from. It must be registered with pre-registered clients.
 */
export function oauthCallbackUrl(server: string, publicOrigin: string | undefined, requestUrl: URL): string {
	return `${publicOrigin ?? requestUrl.origin}/api/mcp/${encodeURIComponent(server)}/callback`;
}

/** Exactly the callback's path, as it arrives (request-guard.ts matches raw paths). */
export const OAUTH_CALLBACK_PATH = /^\/api\/mcp\/[A-Za-z0-9_-]+\/callback$/;
