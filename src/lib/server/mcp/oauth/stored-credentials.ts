/**
 * Pure. The JSON Sophos keeps of an OAuth client and its tokens (storage McpAuthRecord), parsed
 * with the MCP SDK's own schemas when read back: what the database holds is input too. The SDK's
 * `issuer` stamp is kept, so its check that tokens go back only to the server that issued them holds.
 */
import {
	OAuthClientInformationFullSchema,
	OAuthTokensSchema,
	type OAuthClientInformationFull,
	type OAuthTokens
} from '@modelcontextprotocol/sdk/shared/auth.js';

export function readTokens(json: string | null | undefined): OAuthTokens | undefined {
	if (!json) return undefined;
	const parsed = OAuthTokensSchema.safeParse(JSON.parse(json));
	return parsed.success ? parsed.data : undefined;
}

export function readClient(json: string | null | undefined): OAuthClientInformationFull | undefined {
	if (!json) return undefined;
	const parsed = OAuthClientInformationFullSchema.safeParse(JSON.parse(json));
	return parsed.success ? parsed.data : undefined;
}

/** The tokens to store and when their access token expires (ISO), from `expires_in` seconds at `now`. */
export function tokensToStore(tokens: OAuthTokens, now: Date): { tokens: string; expiresAt: string | null } {
	const expiresAt = tokens.expires_in === undefined ? null : new Date(now.getTime() + tokens.expires_in * 1000).toISOString();
	return { tokens: JSON.stringify(tokens), expiresAt };
}

/**
 * Whether a token expiring at `expiresAt` is refreshed before it is used at `now`: within
 * `marginMs` of its end, so a call sent just before the end does not meet a 401 on the way.
 */
export function isExpiring(expiresAt: string | null, now: Date, marginMs: number): boolean {
	return expiresAt !== null && Date.parse(expiresAt) - now.getTime() <= marginMs;
}
