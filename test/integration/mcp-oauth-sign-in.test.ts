// Signing in to a remote MCP server behind OAuth: the MCP SDK's own example server with its demo
// authorization server, the browser's round trip followed redirect by redirect, every bad callback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRedirects, OAuthServer, oauthConfig } from '../support/oauth-servers';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun } from '../support/sse';

type McpCheck = { status: string; tools: number; signIn?: string; oauth?: boolean; message?: string };

async function mcpCheck(service: Service, name: string): Promise<McpCheck> {
	return (await (await service.fetch('/api/readyz')).json()).checks.mcp[name];
}

async function toolMessages(service: Service, message: string) {
	const { conversation } = await (await service.post('/api/chat', { message })).json();
	expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
	const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
	return (detail.messages as { role: string; name?: string; status?: string; content: string }[]).filter((m) => m.role === 'tool');
}

const isCallback = (url: string) => new URL(url).pathname === '/api/mcp/demo/callback';

describe('sign-in to a remote MCP server with OAuth (the SDK example server)', () => {
	let demo: OAuthServer;
	let ollama: ScriptedOllama;
	let service: Service;

	beforeAll(async () => {
		demo = await OAuthServer.sdkExample();
		ollama = await ScriptedOllama.start(callsScript([{ name: 'demo__greet', arguments: { name: 'Ada' } }]));
		const configDir = oauthConfig({
			demo: { url: demo.url, trusted: true, approval: 'auto' },
			memory: { command: 'node', args: ['node_modules/@modelcontextprotocol/server-memory/dist/index.js'], env: { MEMORY_FILE_PATH: '${MEMORY_FILE_PATH}' } }
		});
		// Each answer fresh: a sign-out must show at once, not after the readiness cache.
		service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { READINESS_CACHE_MS: '0' } });
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
		await demo?.close();
	});

	it('needs sign-in at start: not down, with the path to sign in; the other server and runs go on', async () => {
		expect(await mcpCheck(service, 'demo')).toEqual({
			status: 'sign-in',
			tools: 0,
			signIn: '/api/mcp/demo/sign-in',
			message: 'MCP server "demo" needs sign-in'
		});
		expect(await mcpCheck(service, 'memory')).toMatchObject({ status: 'ok' });
		const ready = await (await service.fetch('/api/readyz')).json();
		expect(ready.message).toContain('MCP server "demo" needs sign-in');
	});

	it('a run while signed out is not offered the server\'s tools, and a call planned to it is a tool error saying it needs sign-in', async () => {
		const before = ollama.requests.length;
		const [call] = await toolMessages(service, 'greet Ada');
		const offered = ollama.requests[before]!.tools!.map((t) => t.function.name);
		expect(offered.some((n) => n.startsWith('demo__'))).toBe(false);
		expect(offered.some((n) => n.startsWith('memory__'))).toBe(true);
		expect(call).toMatchObject({ name: 'demo__greet', status: 'error' });
		expect(call!.content).toContain('needs sign-in');
	});

	it('refuses callbacks with no, a wrong or an unknown server\'s state, changing nothing', async () => {
		const none = await service.fetch('/api/mcp/demo/callback?code=abc');
		expect(none.status).toBe(400);
		expect(none.headers.get('content-type')).toContain('text/html');
		expect(await none.text()).toContain('Sign-in not recognised');
		const wrong = await service.fetch('/api/mcp/demo/callback?code=abc&state=not-a-state');
		expect(wrong.status).toBe(400);
		const unknown = await service.fetch('/api/mcp/nope/callback?code=abc&state=x');
		expect(unknown.status).toBe(404);
		expect(await unknown.text()).toContain('No MCP server is named');
		const repeated = await service.fetch('/api/mcp/demo/callback?state=a&state=b');
		expect(repeated.status).toBe(400);
		expect((await mcpCheck(service, 'demo')).status).toBe('sign-in');
	});

	it('an error from the authorization server is a clear page and changes nothing, and uses the sign-in up', async () => {
		const { next } = await followRedirects(`${service.url}/api/mcp/demo/sign-in`, (url) => url.startsWith(demo.authUrl));
		const state = new URL(next!).searchParams.get('state')!;
		const refused = await service.fetch(`/api/mcp/demo/callback?error=access_denied&error_description=the+person+said+no&state=${state}`);
		expect(refused.status).toBe(400);
		expect(await refused.text()).toContain('answered access_denied: the person said no');
		expect((await mcpCheck(service, 'demo')).status).toBe('sign-in');
	});

	it('signs in as a browser would: discovery, registration, PKCE, state and resource, back to the callback, connected', async () => {
		const { hops, next } = await followRedirects(`${service.url}/api/mcp/demo/sign-in`, isCallback);
		expect(hops[0]).toMatchObject({ status: 303 });
		const authorize = new URL(hops[0]!.location!);
		expect(authorize.origin).toBe(demo.authUrl);
		expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
		expect(authorize.searchParams.get('resource')).toBe(demo.url);
		expect(authorize.searchParams.get('redirect_uri')).toBe(`${service.url}/api/mcp/demo/callback`);
		expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);

		const done = await fetch(next!);
		expect(done.status).toBe(200);
		expect(await done.text()).toMatch(/Signed in to demo/);
		expect(await mcpCheck(service, 'demo')).toMatchObject({ status: 'ok', oauth: true });
		expect((await mcpCheck(service, 'demo')).tools).toBeGreaterThan(0);

		const replayed = await fetch(next!);
		expect(replayed.status).toBe(400);
		expect(await replayed.text()).toContain('Sign-in not recognised');
		expect((await mcpCheck(service, 'demo')).status).toBe('ok');

		const before = ollama.requests.length;
		const [call] = await toolMessages(service, 'greet Ada');
		expect(ollama.requests[before]!.tools!.map((t) => t.function.name)).toContain('demo__greet');
		expect(call).toMatchObject({ name: 'demo__greet', status: 'success' });
		expect(call!.content).toContain('Hello, Ada!');
	});

	it('keeps no token where it can be read: not in the readiness answer, the log or the conversation', async () => {
		const ready = await (await service.fetch('/api/readyz')).text();
		expect(ready).not.toMatch(/access_token|refresh_token|Bearer/);
		expect(service.output).not.toMatch(/access_token|Bearer [0-9a-f-]{36}/);
	});

	it('is still signed in after a restart', async () => {
		await service.stop();
		service = await service.restart();
		expect(await mcpCheck(service, 'demo')).toMatchObject({ status: 'ok', oauth: true });
	});

	it('signs out: the tokens are forgotten and the server needs sign-in again, also after a restart', async () => {
		const out = await service.fetch('/api/mcp/demo/sign-out', { method: 'POST' });
		expect(out.status).toBe(200);
		expect(await out.json()).toEqual({ server: 'demo', signedOut: true });
		expect((await mcpCheck(service, 'demo')).status).toBe('sign-in');
		expect(await (await service.fetch('/api/mcp/demo/sign-out', { method: 'POST' })).json()).toEqual({ server: 'demo', signedOut: false });
		await service.stop();
		service = await service.restart();
		expect((await mcpCheck(service, 'demo')).status).toBe('sign-in');
	});

	it('answers bad sign-in and sign-out requests with clear 4xx, changing nothing', async () => {
		const unknown = await service.fetch('/api/mcp/nope/sign-in', { redirect: 'manual' });
		expect(unknown.status).toBe(404);
		expect((await unknown.json()).error.code).toBe('NOT_FOUND');
		const local = await service.fetch('/api/mcp/memory/sign-in', { redirect: 'manual' });
		expect(local.status).toBe(400);
		expect((await local.json()).error.message).toContain('not signed in to with OAuth');
		const badName = await service.fetch('/api/mcp/a.b/sign-in', { redirect: 'manual' });
		expect(badName.status).toBe(400);
		expect((await service.fetch('/api/mcp/nope/sign-out', { method: 'POST' })).status).toBe(404);
		expect((await service.fetch('/api/mcp/memory/sign-out', { method: 'POST' })).status).toBe(400);
		expect((await service.fetch('/api/mcp/demo/sign-out')).status).toBe(405);
		// A page elsewhere cannot sign the person out.
		const crossSite = await service.fetch('/api/mcp/demo/sign-out', { method: 'POST', headers: { Origin: 'https://evil.example' } });
		expect(crossSite.status).toBe(403);
		expect((await mcpCheck(service, 'demo')).status).toBe('sign-in');
		expect((await mcpCheck(service, 'memory')).status).toBe('ok');
	});
});
