// A remote MCP server behind OAuth, with an authorization server that issues refresh tokens (the
// MCP SDK's demo one does not), built from the SDK's own server pieces. Run as a child process:
// OAUTH_MCP_PORT and OAUTH_AUTH_PORT on 127.0.0.1.
// For the test: POST /admin/expire ends every access token; POST /admin/token-endpoint?mode=
// `ok` | `error` (500 with an OAuth error) | `garbage` (200 with a body that is no token) | `hold`
// (each request waits for POST /admin/release; GET /admin/held answers once one waits);
// GET /admin/stats counts code exchanges, refreshes and client_credentials tokens by client, and
// lists the scope each authorization asked;
// GET /admin/tokens lists every token issued.
// Its tool `write_note` needs the scope `notes:write`: without it a call is answered 403
// `insufficient_scope`, named in `WWW-Authenticate`; after POST /admin/step-up?mode=never every call
// to it is refused so, whatever the token's scope, and the error is named only in the body.
// Its authorization server also gives tokens for the client_credentials grant (which the SDK's
// token handler does not) to two clients registered beforehand: `machine` with secret `machine-secret`
// (HTTP Basic or in the body), and `signed-machine`, whose ES256 assertions (private_key_jwt) are
// checked with OAUTH_MACHINE_PUBLIC_KEY (PEM).
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, mcpAuthMetadataRouter, createOAuthMetadata, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthServerProvider, AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

const mcpPort = Number(process.env.OAUTH_MCP_PORT);
const authPort = Number(process.env.OAUTH_AUTH_PORT);
// A sign-in's tokens may be short-lived (OAUTH_FIRST_TOKEN_SECONDS), so Sophos refreshes one before it
// expires without the test waiting for a clock; refreshed ones last an hour.
const firstTokenSeconds = Number(process.env.OAUTH_FIRST_TOKEN_SECONDS ?? 3600);
const mcpUrl = new URL(`http://127.0.0.1:${mcpPort}/mcp`);
const authUrl = new URL(`http://127.0.0.1:${authPort}`);

const clients = new Map<string, OAuthClientInformationFull>();
const codes = new Map<string, { clientId: string; challenge: string; scopes: string[] }>();
const access = new Map<string, { clientId: string; expiresAt: number; scopes: string[] }>();
const refresh = new Map<string, { clientId: string; scopes: string[] }>();
const stats = { exchanges: 0, refreshes: 0, refusedRefreshes: 0, authorizations: [] as string[], machineTokens: {} as Record<string, number> };
let stepUpMode: 'header' | 'never' = 'header';
/** Every access and refresh token given out, for the test to look for where none may be. */
const issued: string[] = [];
let tokenMode: 'ok' | 'error' | 'garbage' | 'hold' = 'ok';
/** In `hold` mode, token requests wait here until POST /admin/release; GET /admin/held answers once one waits. */
const held: (() => void)[] = [];
const heldWaiters: (() => void)[] = [];

function issue(clientId: string, tokenSeconds: number, scopes: string[]) {
	const token = randomUUID();
	const refreshToken = randomUUID();
	access.set(token, { clientId, expiresAt: Date.now() + tokenSeconds * 1000, scopes });
	refresh.set(refreshToken, { clientId, scopes });
	issued.push(token, refreshToken);
	return { access_token: token, token_type: 'bearer', expires_in: tokenSeconds, refresh_token: refreshToken, ...(scopes.length ? { scope: scopes.join(' ') } : {}) };
}

const provider: OAuthServerProvider = {
	clientsStore: {
		getClient: async (id) => clients.get(id),
		// The SDK's registration handler gives the client its id before it is stored.
		registerClient: async (client) => {
			const full = client as OAuthClientInformationFull;
			clients.set(full.client_id, full);
			return full;
		}
	},
	async authorize(client, params: AuthorizationParams, res) {
		// The person says yes at once: what a test follows is the redirects, not a login form.
		const code = randomUUID();
		const scopes = params.scopes ?? [];
		stats.authorizations.push(scopes.join(' '));
		codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge, scopes });
		const target = new URL(params.redirectUri);
		target.searchParams.set('code', code);
		if (params.state !== undefined) target.searchParams.set('state', params.state);
		res.redirect(target.href);
	},
	async challengeForAuthorizationCode(_client, code) {
		const found = codes.get(code);
		if (!found) throw new Error('unknown code');
		return found.challenge;
	},
	async exchangeAuthorizationCode(client, code) {
		const found = codes.get(code);
		if (!found || found.clientId !== client.client_id) throw new Error('unknown code');
		codes.delete(code);
		stats.exchanges++;
		return issue(client.client_id, firstTokenSeconds, found.scopes);
	},
	async exchangeRefreshToken(client, refreshToken) {
		// Rotated: a refresh token is good once, so two refreshes of one token leave the second refused.
		const found = refresh.get(refreshToken);
		if (found?.clientId !== client.client_id) {
			stats.refusedRefreshes++;
			const { InvalidGrantError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
			throw new InvalidGrantError('refresh token already used or unknown');
		}
		refresh.delete(refreshToken);
		stats.refreshes++;
		return issue(client.client_id, 3600, found.scopes);
	},
	async verifyAccessToken(token): Promise<AuthInfo> {
		const found = access.get(token);
		if (!found || found.expiresAt <= Date.now()) {
			const { InvalidTokenError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
			throw new InvalidTokenError('expired or unknown token');
		}
		return { token, clientId: found.clientId, scopes: found.scopes, expiresAt: Math.floor(found.expiresAt / 1000) };
	}
};

const auth = express();
auth.post('/admin/expire', (_req: Request, res: Response) => {
	for (const entry of access.values()) entry.expiresAt = 0;
	res.json({ ok: true });
});
auth.post('/admin/token-endpoint', (req: Request, res: Response) => {
	tokenMode = z.enum(['ok', 'error', 'garbage', 'hold']).parse(req.query.mode);
	res.json({ ok: true });
});
auth.get('/admin/held', (_req: Request, res: Response) => {
	if (held.length) return void res.json({ held: held.length });
	heldWaiters.push(() => res.json({ held: held.length }));
});
auth.post('/admin/release', (_req: Request, res: Response) => {
	tokenMode = 'ok';
	for (const release of held.splice(0)) release();
	res.json({ ok: true });
});
auth.post('/admin/step-up', (req: Request, res: Response) => {
	stepUpMode = z.enum(['header', 'never']).parse(req.query.mode);
	res.json({ ok: true });
});
auth.get('/admin/stats', (_req: Request, res: Response) => res.json(stats));
auth.get('/admin/tokens', (_req: Request, res: Response) => res.json([...issued]));
const MACHINE = { id: 'machine', secret: 'machine-secret' };
const SIGNED_MACHINE = 'signed-machine';
const machineKey = process.env.OAUTH_MACHINE_PUBLIC_KEY ? createPublicKey(process.env.OAUTH_MACHINE_PUBLIC_KEY) : undefined;

/** The client an ES256 assertion (RFC 7523) was signed by, if it is `signed-machine`'s, for this server, and not expired. */
function assertedClient(assertion: string): string | undefined {
	const [head = '', body = '', signature = ''] = assertion.split('.');
	const header = JSON.parse(Buffer.from(head, 'base64url').toString());
	const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
	const signed = machineKey && header.alg === 'ES256' && verify('sha256', Buffer.from(`${head}.${body}`), { key: machineKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
	const forUs = [claims.aud].flat().some((aud: string) => aud.replace(/\/$/, '') === authUrl.href.replace(/\/$/, ''));
	return signed && forUs && claims.iss === SIGNED_MACHINE && claims.sub === SIGNED_MACHINE && claims.exp * 1000 > Date.now() ? SIGNED_MACHINE : undefined;
}

function machineClient(req: Request): string | undefined {
	if (req.body.client_assertion_type === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') return assertedClient(String(req.body.client_assertion));
	const basic = req.headers.authorization?.startsWith('Basic ') ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString().split(':') : [];
	const [id, secret] = basic.length ? basic : [req.body.client_id, req.body.client_secret];
	return id === MACHINE.id && secret === MACHINE.secret ? MACHINE.id : undefined;
}

auth.post('/token', express.urlencoded({ extended: false }), (req: Request, res: Response, next: NextFunction) => {
	if (req.body?.grant_type !== 'client_credentials') return next();
	const client = machineClient(req);
	if (!client) return void res.status(401).json({ error: 'invalid_client', error_description: 'unknown client, wrong secret or bad assertion' });
	stats.machineTokens[client] = (stats.machineTokens[client] ?? 0) + 1;
	const { refresh_token: _none, ...tokens } = issue(client, 3600, typeof req.body.scope === 'string' ? req.body.scope.split(' ') : []);
	res.json(tokens);
});
auth.post('/token', (_req: Request, res: Response, next: NextFunction) => {
	if (tokenMode === 'hold') {
		held.push(next);
		for (const waiter of heldWaiters.splice(0)) waiter();
		return;
	}
	if (tokenMode === 'error') return void res.status(500).json({ error: 'server_error', error_description: 'the token endpoint is broken' });
	if (tokenMode === 'garbage') return void res.status(200).type('text/plain').send('<html>not a token</html>');
	next();
});
auth.use(mcpAuthRouter({ provider, issuerUrl: authUrl }));
auth.listen(authPort, '127.0.0.1');

const app = express();
app.use(express.json());
app.use(mcpAuthMetadataRouter({ oauthMetadata: createOAuthMetadata({ provider, issuerUrl: authUrl }), resourceServerUrl: mcpUrl }));
const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
/** A call to `write_note` with a token lacking `notes:write`, or any call to it with mode=never, is refused for scope. */
function stepUpGate(req: Request, res: Response, next: NextFunction) {
	const body = req.body as { method?: string; params?: { name?: string } } | undefined;
	const writes = body?.method === 'tools/call' && body.params?.name === 'write_note';
	if (!writes || (stepUpMode !== 'never' && req.auth?.scopes.includes('notes:write'))) return next();
	const named = stepUpMode === 'never' ? '' : 'error="insufficient_scope", ';
	res.status(403)
		.set('WWW-Authenticate', `Bearer ${named}scope="notes:write", resource_metadata="${getOAuthProtectedResourceMetadataUrl(mcpUrl)}"`)
		.json({ error: 'insufficient_scope', error_description: 'writing notes needs notes:write' });
}

app.all('/mcp', bearer, stepUpGate, async (req: Request, res: Response) => {
	// Stateless: every request its own server and transport, so a refreshed token needs no new session.
	const server = new McpServer({ name: 'oauth-fixture', version: '1.0.0' });
	server.registerTool('whoami', { description: 'Who the token belongs to', inputSchema: {}, annotations: { readOnlyHint: true } }, async (_args, extra) => ({
		content: [{ type: 'text', text: `signed in as ${extra.authInfo?.clientId}` }]
	}));
	server.registerTool('write_note', { description: 'Writes a note (needs the notes:write scope)', inputSchema: {} }, async (_args, extra) => ({
		content: [{ type: 'text', text: `note written with ${extra.authInfo?.scopes.join(' ')}` }]
	}));
	const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
	res.on('close', () => void transport.close());
	await server.connect(transport);
	await transport.handleRequest(req, res, req.body);
});
app.listen(mcpPort, '127.0.0.1', () => console.log(`OAuth MCP fixture listening on ${mcpPort} and ${authPort}`));
