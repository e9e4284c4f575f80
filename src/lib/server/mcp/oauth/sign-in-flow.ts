import { randomBytes } from 'node:crypto';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationFull, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ServerOAuth } from './server-oauth';
import { readClient, tokensToStore } from './stored-credentials';

/**
 * How long a sign-in begun waits for the browser to come back. Ten minutes is the lifetime OAuth
 * advises for an authorization code; a person slower than that starts again from the link.
 */
const SIGN_IN_TTL_MS = 10 * 60_000;

/** What the authorization server's redirect to the callback brought. */
export type CallbackQuery = { state?: string; code?: string; error?: string; errorDescription?: string };

export type CallbackOutcome =
	| { kind: 'signed-in' }
	/** No sign-in of this server is waiting for this state: wrong, replayed, expired or missing. */
	| { kind: 'unknown-state' }
	/** The authorization server sent the person back with an error (they declined, or it refused). */
	| { kind: 'refused'; error: string; description?: string }
	/** The code could not be exchanged: the token endpoint refused it or answered nonsense. */
	| { kind: 'exchange-failed'; message: string };

/**
 * The SDK's provider for one step of a person's sign-in: registers (or uses mcp.json's client), asks
 * for a state and PKCE, and on the way back exchanges the code with the verifier begun with. It
 * never refreshes: a sign-in always asks the person.
 */
class SignInProvider implements OAuthClientProvider {
	authorizationUrl: URL | undefined;
	private issuedState: string | undefined;

	constructor(
		private readonly oauth: ServerOAuth,
		private readonly redirectUri: string,
		private verifier?: string
	) {}

	get redirectUrl(): string {
		return this.redirectUri;
	}

	get clientMetadata(): OAuthClientMetadata {
		const secret = this.oauth.settings?.clientSecret;
		return {
			client_name: 'Sophos',
			redirect_uris: [this.redirectUri],
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
			token_endpoint_auth_method: secret ? 'client_secret_post' : 'none',
			...(this.oauth.settings?.scope ? { scope: this.oauth.settings.scope } : {})
		};
	}

	state(): string {
		this.issuedState ??= randomBytes(32).toString('base64url');
		return this.issuedState;
	}

	get issued(): string | undefined {
		return this.issuedState;
	}

	/** A registered client is used only for the redirect URI it registered; another one registers anew. */
	async clientInformation(): Promise<OAuthClientInformationFull | undefined> {
		const record = await this.oauth.storage.get(this.oauth.server);
		const client = this.oauth.client(record);
		if (!client || this.oauth.settings?.clientId) return client;
		return readClient(record?.client)?.redirect_uris.includes(this.redirectUri) ? client : undefined;
	}

	async saveClientInformation(client: OAuthClientInformationFull): Promise<void> {
		if (this.oauth.settings?.clientId) return;
		await this.oauth.storage.saveClient(this.oauth.server, JSON.stringify(client), new Date().toISOString());
	}

	tokens(): undefined {
		return undefined;
	}

	async saveTokens(tokens: OAuthTokens): Promise<void> {
		this.oauth.remember(tokens);
		const now = new Date();
		const stored = tokensToStore(tokens, now);
		await this.oauth.storage.saveTokens(this.oauth.server, stored.tokens, stored.expiresAt, now.toISOString());
	}

	redirectToAuthorization(url: URL): void {
		this.authorizationUrl = url;
	}

	saveCodeVerifier(verifier: string): void {
		this.verifier = verifier;
	}

	codeVerifier(): string {
		if (!this.verifier) throw new Error('no sign-in is under way');
		return this.verifier;
	}

	discoveryState() {
		return this.oauth.discoveryState();
	}

	saveDiscoveryState(state: Parameters<ServerOAuth['saveDiscoveryState']>[0]): void {
		this.oauth.saveDiscoveryState(state);
	}
}

/**
 * Begins a person's sign-in: discovery, registration when there is no client yet, state and PKCE,
 * remembered for SIGN_IN_TTL_MS. The authorization server's URL to send the browser to.
 */
export async function beginSignIn(oauth: ServerOAuth, redirectUri: string, now = new Date()): Promise<URL> {
	const provider = new SignInProvider(oauth, redirectUri);
	const scope = oauth.scopeToAsk();
	await auth(provider, { serverUrl: oauth.url, ...(scope ? { scope } : {}) });
	oauth.signInAsked(scope);
	const { authorizationUrl, issued } = provider;
	if (!authorizationUrl || !issued) throw new Error(`the authorization server of "${oauth.server}" offered no sign-in`);
	const verifier = provider.codeVerifier();
	await oauth.storage.beginSignIn(issued, { server: oauth.server, verifier, redirectUri }, new Date(now.getTime() + SIGN_IN_TTL_MS).toISOString());
	return authorizationUrl;
}

/**
 * The browser's return from the authorization server. The state is taken first, once: a wrong,
 * replayed or expired one changes nothing, and whatever else comes back changes no stored token
 * unless the code is exchanged.
 */
export async function completeSignIn(oauth: ServerOAuth, query: CallbackQuery, now = new Date()): Promise<CallbackOutcome> {
	if (!query.state) return { kind: 'unknown-state' };
	const pending = await oauth.storage.takeSignIn(query.state, oauth.server, now.toISOString());
	if (!pending) return { kind: 'unknown-state' };
	if (query.error) return { kind: 'refused', error: query.error, ...(query.errorDescription ? { description: query.errorDescription } : {}) };
	if (!query.code) return { kind: 'refused', error: 'invalid_request', description: 'the authorization server sent no code' };
	const provider = new SignInProvider(oauth, pending.redirectUri, pending.verifier);
	try {
		await auth(provider, { serverUrl: oauth.url, authorizationCode: query.code });
		return { kind: 'signed-in' };
	} catch (e) {
		return { kind: 'exchange-failed', message: e instanceof Error ? e.message : String(e) };
	}
}
