// A remote MCP server signed in to machine to machine (mcp.json `oauth.grant: "client_credentials"`):
// no person, so never `sign-in`; the token is had at start and again after a 401; a wrong secret, a
// key the server does not know or another issuer is a server in error, not one waiting for a
// sign-in. Against our fixture (oauth-mcp-server.ts), whose authorization server gives such tokens
// to its client `machine` (a secret) and `signed-machine` (assertions signed with its private key).
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstToolMessage, OAuthServer, oauthConfig } from '../support/oauth-servers';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { Service } from '../support/service';

type McpCheck = { status: string; tools: number; signIn?: string; oauth?: boolean; message?: string };

const ecKeys = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });

describe('OAuth client credentials for a remote MCP server', () => {
	let remote: OAuthServer;
	let ollama: ScriptedOllama;
	let service: Service;
	const check = async (name: string): Promise<McpCheck> => (await (await service.fetch('/api/readyz')).json()).checks.mcp[name];
	const machineTokens = async () => (await remote.admin<{ machineTokens: Record<string, number> }>('/admin/stats', 'GET')).machineTokens;

	beforeAll(async () => {
		const keys = ecKeys();
		remote = await OAuthServer.fixture({ machinePublicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
		ollama = await ScriptedOllama.start(callsScript([{ name: 'machine__whoami', arguments: {} }]));
		const secret = { grant: 'client_credentials', clientId: 'machine', clientSecret: 'machine-secret', issuer: remote.authUrl };
		const signed = { grant: 'client_credentials', clientId: 'signed-machine', signingAlgorithm: 'ES256', issuer: remote.authUrl };
		const pem = (key: ReturnType<typeof ecKeys>['privateKey']) => key.export({ type: 'pkcs8', format: 'pem' }).toString();
		const configDir = oauthConfig({
			machine: { url: remote.url, trusted: true, approval: 'auto', oauth: secret },
			signed: { url: remote.url, oauth: { ...signed, privateKey: pem(keys.privateKey) } },
			wrong: { url: remote.url, oauth: { ...secret, clientSecret: 'not-the-secret' } },
			forged: { url: remote.url, oauth: { ...signed, privateKey: pem(ecKeys().privateKey) } },
			elsewhere: { url: remote.url, oauth: { ...secret, issuer: 'https://auth.example' } }
		});
		service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { READINESS_CACHE_MS: '0' } });
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
		await remote?.close();
	});

	it('connects without a person, with a secret or a signed assertion: the tool answers as the client', async () => {
		expect(await check('machine')).toMatchObject({ status: 'ok', tools: 2 });
		expect(await check('signed')).toMatchObject({ status: 'ok', tools: 2 });
		expect(await firstToolMessage(service, 'who am I?')).toMatchObject({ status: 'success', content: 'signed in as machine' });
		expect(await machineTokens()).toEqual({ machine: 1, 'signed-machine': 1 });
	});

	it('a 401 gets a new token and the call is answered', async () => {
		await remote.admin('/admin/expire');
		expect(await firstToolMessage(service, 'who am I?')).toMatchObject({ status: 'success', content: 'signed in as machine' });
		expect((await machineTokens()).machine).toBe(2);
	});

	it('a wrong secret, a key the server does not know, or another issuer is an error, not a sign-in', async () => {
		for (const name of ['wrong', 'forged', 'elsewhere']) {
			const found = await check(name);
			expect(found.status).toBe('error');
			expect(found.signIn).toBeUndefined();
		}
		expect(await machineTokens()).toEqual({ machine: 2, 'signed-machine': 1 });
	});

	it('offers no sign-in or sign-out for it, and no token it was given is in the log', async () => {
		const signIn = await service.fetch('/api/mcp/machine/sign-in', { redirect: 'manual' });
		expect(signIn.status).toBe(400);
		expect((await signIn.json()).error.message).toContain('is not signed in to with OAuth by a person');
		expect((await service.fetch('/api/mcp/signed/sign-out', { method: 'POST' })).status).toBe(400);
		const tokens = await remote.admin<string[]>('/admin/tokens', 'GET');
		expect(tokens.length).toBe(6);
		for (const token of tokens) expect(service.output).not.toContain(token);
	});
});
