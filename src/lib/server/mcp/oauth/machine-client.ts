import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthClientSettings } from './oauth-settings';

/** Whether mcp.json has Sophos sign in to the server as the client itself (`grant: "client_credentials"`). */
export function signsInItself(settings: OAuthClientSettings | undefined): boolean {
	return settings?.grant === 'client_credentials';
}

/**
 * The SDK's provider for the client_credentials grant, authenticated with the client's secret
 * (client_secret_basic) or an assertion signed with its private key (private_key_jwt); sent only to
 * `issuer`. Its tokens stay in its memory, never stored: another one is had at any time without a
 * person. Each one is handed to `remember` (the redactor) when it comes.
 */
export function machineProvider(settings: OAuthClientSettings, remember: (tokens: OAuthTokens) => void): OAuthClientProvider {
	const { clientId, clientSecret, privateKey, signingAlgorithm, issuer, scope } = settings;
	// mcp-config.ts refuses a client_credentials entry without an id, the issuer, and a secret or a key.
	if (!clientId || !issuer) throw new Error('client_credentials needs a clientId and the issuer');
	const common = { clientId, clientName: 'Sophos', expectedIssuer: issuer, ...(scope ? { scope } : {}) };
	if (privateKey && signingAlgorithm) return remembering(new PrivateKeyJwtProvider({ ...common, privateKey, algorithm: signingAlgorithm }), remember);
	if (clientSecret) return remembering(new ClientCredentialsProvider({ ...common, clientSecret }), remember);
	throw new Error('client_credentials needs a clientSecret or a privateKey');
}

function remembering(provider: ClientCredentialsProvider | PrivateKeyJwtProvider, remember: (tokens: OAuthTokens) => void): OAuthClientProvider {
	const save = provider.saveTokens.bind(provider);
	provider.saveTokens = (tokens: OAuthTokens) => {
		remember(tokens);
		save(tokens);
	};
	return provider;
}
