import type { OAuthSettings } from '../mcp-config';

/**
 * mcp.json `oauth` of a remote server, as mcp-config.ts parses it: a pre-registered client, and the
 * scope to ask; with `grant: "client_credentials"`, the client signs in as itself at `issuer`, with
 * its secret or an assertion signed with its private key.
 */
export type OAuthClientSettings = OAuthSettings;

/** The client Sophos signs in as when mcp.json gives one (servers that do not offer registration). */
export function configuredClient(settings: OAuthClientSettings | undefined): { client_id: string; client_secret?: string } | undefined {
	if (!settings?.clientId) return undefined;
	return { client_id: settings.clientId, ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}) };
}
