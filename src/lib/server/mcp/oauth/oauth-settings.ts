/**
 * mcp.json `oauth` of a remote server, as mcp-config.ts parses it: a pre-registered client, and the
 * scope to ask; with `grant: "client_credentials"`, the client signs in as itself at `issuer`.
 */
export type OAuthClientSettings = {
	grant?: 'authorization_code' | 'client_credentials';
	clientId?: string;
	clientSecret?: string;
	issuer?: string;
	scope?: string;
};

/** The client Sophos signs in as when mcp.json gives one (servers that do not offer registration). */
export function configuredClient(settings: OAuthClientSettings | undefined): { client_id: string; client_secret?: string } | undefined {
	if (!settings?.clientId) return undefined;
	return { client_id: settings.clientId, ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}) };
}

/** The client of a server signed in to machine to machine (`grant: "client_credentials"`), no person involved. */
export function machineClient(
	settings: OAuthClientSettings | undefined
): { clientId: string; clientSecret: string; expectedIssuer: string; scope?: string } | undefined {
	if (settings?.grant !== 'client_credentials' || !settings.clientId || !settings.clientSecret || !settings.issuer) return undefined;
	return { clientId: settings.clientId, clientSecret: settings.clientSecret, expectedIssuer: settings.issuer, ...(settings.scope ? { scope: settings.scope } : {}) };
}
