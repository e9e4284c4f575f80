// OAuth tokens of a remote MCP server refreshed before they expire and after a 401, a refresh that
// fails putting the server back to sign-in, and a token endpoint that misbehaves at the callback:
// against our fixture (test/support/oauth-mcp-server.ts), whose authorization server issues and
// rotates refresh tokens, which the SDK's demo one does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstToolMessage, followRedirects, OAuthServer, startWithFixture } from '../support/oauth-servers';
import type { Service } from '../support/service';

async function status(service: Service): Promise<string> {
	return (await (await service.fetch('/api/readyz')).json()).checks.mcp.remote.status;
}

describe('OAuth tokens of a remote MCP server: refresh, failure, a misbehaving token endpoint', () => {
	let remote: OAuthServer;
	let service: Service;
	let close: (() => Promise<void>) | undefined;
	const signIn = () => followRedirects(`${service.url}/api/mcp/remote/sign-in`);

	beforeAll(async () => {
		// A sign-in's token lives 30 s, inside the minute before expiry in which Sophos refreshes.
		({ remote, service, close } = await startWithFixture('remote__whoami', { firstTokenSeconds: 30 }));
	});
	afterAll(() => close?.());

	it('a token endpoint that answers an error or nonsense to the code exchange is a clear page, and nothing is stored', async () => {
		expect(await status(service)).toBe('sign-in');
		await remote.admin('/admin/token-endpoint?mode=error');
		const broken = (await signIn()).last!;
		expect(broken.status).toBe(502);
		expect(await broken.text()).toContain('did not give a token');
		await remote.admin('/admin/token-endpoint?mode=garbage');
		const garbage = (await signIn()).last!;
		expect(garbage.status).toBe(502);
		expect(await garbage.text()).toContain('Nothing was changed');
		expect(await status(service)).toBe('sign-in');
		await remote.admin('/admin/token-endpoint?mode=ok');
	});

	it('refreshes a token about to expire before it is sent: signed in, connected, one refresh', async () => {
		const done = (await signIn()).last!;
		expect(done.status).toBe(200);
		expect(await status(service)).toBe('ok');
		expect(await remote.admin('/admin/stats', 'GET')).toMatchObject({ refreshes: 1, refusedRefreshes: 0 });
		expect(await firstToolMessage(service, 'who am I?')).toMatchObject({ status: 'success', content: expect.stringContaining('signed in as') });
		expect((await remote.admin('/admin/stats', 'GET')).refreshes).toBe(1);
	});

	it('refreshes after a 401 and sends the call again: the tool answers', async () => {
		await remote.admin('/admin/expire');
		expect(await firstToolMessage(service, 'who am I?')).toMatchObject({ status: 'success', content: expect.stringContaining('signed in as') });
		expect(await remote.admin('/admin/stats', 'GET')).toMatchObject({ refreshes: 2, refusedRefreshes: 0 });
		expect(await status(service)).toBe('ok');
	});

	it('a refresh that fails puts the server back to sign-in, and the call is a tool error saying so', async () => {
		await remote.admin('/admin/expire');
		await remote.admin('/admin/token-endpoint?mode=error');
		const call = await firstToolMessage(service, 'who am I?');
		expect(call.status).toBe('error');
		expect(call.content).toContain('needs sign-in');
		expect(await status(service)).toBe('sign-in');
		await remote.admin('/admin/token-endpoint?mode=ok');
		expect((await signIn()).last!.status).toBe(200);
		expect(await status(service)).toBe('ok');
	});

	it('no token it was given is in the log, the readiness answer or a conversation\'s export', async () => {
		const tokens = await remote.admin<string[]>('/admin/tokens', 'GET');
		expect(tokens.length).toBeGreaterThan(4);
		const list = await (await service.fetch('/api/conversations')).json();
		const exports = await Promise.all(
			(list.conversations as { id: string }[]).map(async (c) => (await service.fetch(`/api/conversations/${c.id}/export`)).text())
		);
		const readable = [service.output, await (await service.fetch('/api/readyz')).text(), ...exports].join('\n');
		expect(exports.length).toBeGreaterThan(0);
		for (const token of tokens) expect(readable).not.toContain(token);
		expect(service.output).toContain('refreshed the OAuth token of "remote"');
	});
});
