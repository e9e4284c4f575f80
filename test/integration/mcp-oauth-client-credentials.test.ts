// A remote MCP server signed in to machine to machine (mcp.json `oauth.grant: "client_credentials"`):
// no person, so never `sign-in`; the token is had at start and again after a 401; a wrong secret is
// a server in error, not one waiting for a sign-in. Against our fixture (oauth-mcp-server.ts), whose
// authorization server gives client_credentials tokens to its client `machine`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstToolMessage, OAuthServer, oauthConfig } from '../support/oauth-servers';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { Service } from '../support/service';

type McpCheck = { status: string; tools: number; signIn?: string; oauth?: boolean; message?: string };

describe('OAuth client credentials for a remote MCP server', () => {
	let remote: OAuthServer;
	let ollama: ScriptedOllama;
	let service: Service;
	const check = async (name: string): Promise<McpCheck> => (await (await service.fetch('/api/readyz')).json()).checks.mcp[name];
	const machineTokens = async () => (await remote.admin('/admin/stats', 'GET')).machineTokens;

	beforeAll(async () => {
		remote = await OAuthServer.fixture();
		ollama = await ScriptedOllama.start(callsScript([{ name: 'machine__whoami', arguments: {} }]));
		const oauth = { grant: 'client_credentials', clientId: 'machine', clientSecret: 'machine-secret', issuer: remote.authUrl };
		const configDir = oauthConfig({
			machine: { url: remote.url, trusted: true, approval: 'auto', oauth },
			wrong: { url: remote.url, oauth: { ...oauth, clientSecret: 'not-the-secret' } },
			elsewhere: { url: remote.url, oauth: { ...oauth, issuer: 'https://auth.example' } }
		});
		service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { READINESS_CACHE_MS: '0' } });
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
		await remote?.close();
	});

	it('connects without a person: the tool answers as the client', async () => {
		expect(await check('machine')).toMatchObject({ status: 'ok', tools: 2 });
		expect(await firstToolMessage(service, 'who am I?')).toMatchObject({ status: 'success', content: 'signed in as machine' });
		expect(await machineTokens()).toBe(1);
	});

	it('a 401 gets a new token and the call is answered', async () => {
		await remote.admin('/admin/expire');
		expect(await firstToolMessage(service, 'who am I?')).toMatchObject({ status: 'success', content: 'signed in as machine' });
		expect(await machineTokens()).toBe(2);
	});

	it('a wrong secret, or an issuer that is not the server\'s authorization server, is an error, not a sign-in', async () => {
		for (const name of ['wrong', 'elsewhere']) {
			const found = await check(name);
			expect(found.status).toBe('error');
			expect(found.signIn).toBeUndefined();
		}
		expect(await machineTokens()).toBe(2);
	});

	it('offers no sign-in or sign-out for it, and no token it was given is in the log', async () => {
		const signIn = await service.fetch('/api/mcp/machine/sign-in', { redirect: 'manual' });
		expect(signIn.status).toBe(400);
		expect((await signIn.json()).error.message).toContain('is not signed in to with OAuth by a person');
		expect((await service.fetch('/api/mcp/machine/sign-out', { method: 'POST' })).status).toBe(400);
		const tokens = await remote.admin<string[]>('/admin/tokens', 'GET');
		expect(tokens.length).toBe(4);
		for (const token of tokens) expect(service.output).not.toContain(token);
	});
});
