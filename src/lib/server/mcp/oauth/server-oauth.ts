import { discoverOAuthServerInfo, refreshAuthorization, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationFull, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpAuthRecord, McpAuthStorage } from '../../storage/mcp-auth-storage';
import { redactor } from '../../secrets/redactor';
import { machineProvider, signsInItself } from './machine-client';
import { configuredClient, type OAuthClientSettings } from './oauth-settings';
import { readChallenge, scopeUnion, StepUps, type ScopeChallenge } from './scope-challenge';
import { ScopeRefused, SignInRequired } from './sign-in-required';
import { isExpiring, readClient, readTokens, tokensToStore } from './stored-credentials';

/**
 * How long before its end an access token is refreshed on its next use. A minute covers a call's
 * way to the server and clocks a little apart; a shorter margin meets more 401s, each a refresh
 * and a resend.
 */
const REFRESH_MARGIN_MS = 60_000;

/**
 * Step-up sign-ins asked in a row before a server still refusing for scope is taken to be one that
 * no consent satisfies. With the first sign-in that makes three authorizations, the most the MCP
 * conformance suite's retry-limit scenario allows; a person asked a fourth time is in a loop.
 */
const STEP_UP_LIMIT = 2;

export type ServerOAuthParts = {
	server: string;
	url: string;
	settings?: OAuthClientSettings;
	storage: McpAuthStorage;
	log: (line: string) => void;
	now?: () => Date;
};

/**
 * Sophos's OAuth sign-in to one remote MCP server: the tokens its connection sends, refreshed under
 * the storage's lock (before they expire and after a 401), and the client it signs in as. The
 * connection's provider never starts a sign-in itself: a 401 it cannot answer with a refreshed
 * token leaves the server needing one, which a person begins (sign-in-flow.ts).
 */
export class ServerOAuth {
	readonly server: string;
	readonly url: URL;
	private discovered: OAuthDiscoveryState | undefined;
	private refused = false;
	/** A 403 `insufficient_scope` since the last `clearRefusal`. */
	private insufficient: ScopeChallenge | undefined;
	/** The `scope` the server's last 401 named, for the next sign-in. */
	private challenged: string | undefined;
	/** After a step-up: the scopes granted and those required, for the next sign-in. */
	private stepUpScope: string | undefined;
	/** What the last sign-in begun here asked for, when the token response does not say what was granted. */
	private asked: string | undefined;
	private readonly stepUps = new StepUps(STEP_UP_LIMIT);
	private machine: OAuthClientProvider | undefined;
	private sent: string | undefined;
	private readonly now: () => Date;

	constructor(private readonly parts: ServerOAuthParts) {
		this.server = parts.server;
		this.url = new URL(parts.url);
		this.now = parts.now ?? (() => new Date());
	}

	get settings(): OAuthClientSettings | undefined {
		return this.parts.settings;
	}

	get storage(): McpAuthStorage {
		return this.parts.storage;
	}

	/** Discovery as the SDK last did it for this server, so a 401 or a refresh does not repeat it. */
	discoveryState(): OAuthDiscoveryState | undefined {
		return this.discovered;
	}

	saveDiscoveryState(state: OAuthDiscoveryState): void {
		this.discovered = state;
	}

	/** Whether Sophos signs in as the client itself (mcp.json `grant: "client_credentials"`): no person, so never `sign-in`. */
	get signsInItself(): boolean {
		return signsInItself(this.parts.settings);
	}

	/** Whether the server answered 401 with OAuth metadata, or 403 for want of scope, since the last `clearRefusal`. */
	wasRefused(): boolean {
		return this.refused || this.insufficient !== undefined;
	}

	clearRefusal(): void {
		this.refused = false;
		this.insufficient = undefined;
	}

	/**
	 * The scope a person's sign-in asks for: the wider one after a step-up, else the one the
	 * server's last 401 named; undefined leaves the SDK's choice (the resource's `scopes_supported`,
	 * then mcp.json's `scope`).
	 */
	scopeToAsk(): string | undefined {
		return this.stepUpScope ?? this.challenged;
	}

	/** A sign-in begun asking for `scope`. */
	signInAsked(scope: string | undefined): void {
		this.asked = scope;
	}

	/**
	 * The fetch the connection sends with: it notes the server's scope challenges (`WWW-Authenticate`
	 * on a 401, `insufficient_scope` on a 403, also when only the body names it, which the SDK's
	 * own step-up does not see) and hands the answer on unchanged.
	 */
	connectionFetch(): FetchLike | undefined {
		// Signed in as itself, Sophos answers a challenge with a new token at once: the SDK's own step-up.
		if (this.signsInItself) return undefined;
		return async (url, init) => {
			const response = await fetch(url, init);
			if (new URL(url).href !== this.url.href) return response;
			const challenge = await readChallenge(response);
			if (challenge?.kind === 'sign-in') this.challenged = challenge.scope;
			if (challenge?.kind === 'step-up') this.insufficient = challenge;
			return response;
		};
	}

	/**
	 * After a refused request (`wasRefused`): `retry` with a token refreshed (when `mayRetry`), else
	 * `sign-in`. A refusal for want of scope is a step-up: the tokens are forgotten and the next
	 * sign-in asks for the scopes granted and those required, unless STEP_UP_LIMIT of them in a row
	 * did not satisfy the server, which is then the error to report.
	 */
	async afterRefusal(mayRetry: boolean): Promise<'retry' | 'sign-in' | ScopeRefused> {
		const challenge = this.insufficient;
		this.clearRefusal();
		if (!challenge) return mayRetry && (await this.recover()) ? 'retry' : 'sign-in';
		if (!this.stepUps.ask()) return new ScopeRefused(this.server, challenge.scope, this.stepUps.count);
		const granted = readTokens((await this.parts.storage.get(this.server))?.tokens)?.scope ?? this.asked;
		this.stepUpScope = scopeUnion(granted, challenge.scope, this.stepUpScope);
		await this.parts.storage.forget(this.server, 'tokens');
		this.parts.log(`MCP: server "${this.server}" asks for more scope (${challenge.scope ?? 'unnamed'}); signing in again asks for "${this.stepUpScope ?? ''}"`);
		return 'sign-in';
	}

	/** The server answered a request: a later refusal for scope begins a new row of step-ups. */
	answered(): void {
		this.stepUps.answered();
	}

	/** Whether the connection last sent an access token. */
	sendsToken(): boolean {
		return this.sent !== undefined;
	}

	async hasTokens(): Promise<boolean> {
		return readTokens((await this.parts.storage.get(this.server))?.tokens) !== undefined;
	}

	/** The client: mcp.json's, else the one registered and stored. */
	client(record: McpAuthRecord | undefined): OAuthClientInformationFull | undefined {
		const configured = configuredClient(this.parts.settings);
		if (configured) return { ...configured, redirect_uris: [] };
		return readClient(record?.client);
	}

	/** Keeps what the authorization server gave out of every log line and answer from now on. */
	remember(tokens: OAuthTokens): void {
		redactor.add(tokens.access_token, tokens.refresh_token);
	}

	/**
	 * After a 401 on `stale` (the token last sent): refreshes under the lock, or takes the token
	 * another instance refreshed meanwhile. True when there is a newer token to try again with; a
	 * refresh that fails forgets the tokens, so the server needs sign-in.
	 */
	async recover(): Promise<boolean> {
		const stale = this.sent;
		const after = await this.refreshFrom(stale, true);
		return after !== undefined && after.access_token !== stale;
	}

	/** Forgets the tokens (sign-out); false when there were none. Registration is kept for the next sign-in. */
	signOut(): Promise<boolean> {
		return this.parts.storage.forget(this.server, 'tokens');
	}

	/** The provider the connection is made with (StreamableHTTPClientTransport's `authProvider`). */
	connectionProvider(): OAuthClientProvider {
		const settings = this.parts.settings;
		if (settings && signsInItself(settings)) return (this.machine ??= machineProvider(settings, (tokens) => this.remember(tokens)));
		const refuse = async (): Promise<never> => {
			this.refused = true;
			throw new SignInRequired(this.server);
		};
		return {
			redirectUrl: undefined,
			clientMetadata: { redirect_uris: [] } satisfies OAuthClientMetadata,
			// Asked by the SDK's auth() only after a 401 with OAuth metadata: the token sent was refused.
			clientInformation: refuse,
			tokens: () => this.currentTokens(),
			saveTokens: refuse,
			redirectToAuthorization: refuse,
			saveCodeVerifier: refuse,
			codeVerifier: refuse,
			discoveryState: () => this.discovered,
			saveDiscoveryState: (state) => this.saveDiscoveryState(state)
		};
	}

	/**
	 * The access token to send, refreshed first when it is about to expire. Handed to the SDK without
	 * its refresh token: refreshing is Sophos's, under the lock, never the SDK's own unlocked one.
	 */
	private async currentTokens(): Promise<OAuthTokens | undefined> {
		const record = await this.parts.storage.get(this.server);
		let tokens = readTokens(record?.tokens);
		if (tokens && record && isExpiring(record.expiresAt, this.now(), REFRESH_MARGIN_MS)) tokens = await this.refreshFrom(tokens.access_token, false);
		this.sent = tokens?.access_token;
		if (!tokens) return undefined;
		this.remember(tokens);
		return { access_token: tokens.access_token, token_type: tokens.token_type, ...(tokens.issuer ? { issuer: tokens.issuer } : {}) };
	}

	/**
	 * Under the lock: if the stored access token is still `stale`, refreshes it (`refused`: it was
	 * refused, so without a refresh token it is forgotten; else it is used until it is). The tokens after.
	 */
	private async refreshFrom(stale: string | undefined, refused: boolean): Promise<OAuthTokens | undefined> {
		const now = this.now();
		const after = await this.parts.storage.refreshUnderLock(this.server, now.toISOString(), async (current) => {
			const tokens = readTokens(current?.tokens);
			if (!tokens || tokens.access_token !== stale) return 'keep';
			const client = this.client(current);
			if (!tokens.refresh_token || !client) return refused ? 'forget' : 'keep';
			try {
				const found = await this.discover();
				const resource = found.resourceMetadata?.resource;
				const fresh = await refreshAuthorization(found.authorizationServerUrl, {
					metadata: found.authorizationServerMetadata,
					clientInformation: client,
					refreshToken: tokens.refresh_token,
					...(resource ? { resource: new URL(resource) } : {})
				});
				this.remember(fresh);
				this.parts.log(`MCP: refreshed the OAuth token of "${this.server}"`);
				return tokensToStore({ ...fresh, ...(tokens.issuer ? { issuer: tokens.issuer } : {}) }, now);
			} catch (e) {
				this.parts.log(`MCP: refreshing the OAuth token of "${this.server}" failed (${(e as Error).message}); it needs sign-in`);
				return 'forget';
			}
		});
		return readTokens(after?.tokens);
	}

	private async discover(): Promise<OAuthDiscoveryState> {
		this.discovered ??= await discoverOAuthServerInfo(this.url);
		return this.discovered;
	}
}
