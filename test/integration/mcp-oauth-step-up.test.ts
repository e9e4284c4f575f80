// A remote MCP server that wants more scope for a tool than its sign-in gave (the MCP authorization
// spec's step-up): a call refused 403 `insufficient_scope` puts the server back to sign-in with a
// tool error, the next sign-in asks for the scopes granted and required, and a server that keeps
// refusing gets two step-up sign-ins, then a tool error. Against our fixture (oauth-mcp-server.ts),
// whose `write_note` needs `notes:write`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstToolMessage, followRedirects, OAuthServer, startWithFixture } from '../support/oauth-servers';
import type { Service } from '../support/service';

describe('OAuth scope step-up of a remote MCP server', () => {
	let remote: OAuthServer;
	let service: Service;
	let close: (() => Promise<void>) | undefined;
	const signIn = async () => expect((await followRedirects(`${service.url}/api/mcp/remote/sign-in`)).last!.status).toBe(200);
	const status = async (): Promise<string> => (await (await service.fetch('/api/readyz')).json()).checks.mcp.remote.status;
	const authorizations = async () => (await remote.admin<{ authorizations: string[] }>('/admin/stats', 'GET')).authorizations;

	beforeAll(async () => {
		({ remote, service, close } = await startWithFixture('remote__write_note'));
	});
	afterAll(() => close?.());

	it('a call refused for want of scope is a tool error saying sign-in; the next sign-in asks for the scope, and the call answers', async () => {
		await signIn();
		expect(await status()).toBe('ok');
		expect(await authorizations()).toEqual(['']);
		const refused = await firstToolMessage(service, 'write a note');
		expect(refused).toMatchObject({ status: 'error', content: expect.stringContaining('needs sign-in') });
		expect(await status()).toBe('sign-in');
		await signIn();
		expect(await authorizations()).toEqual(['', 'notes:write']);
		expect(await firstToolMessage(service, 'write a note')).toMatchObject({ status: 'success', content: 'note written with notes:write' });
		expect(service.output).toContain('server "remote" asks for more scope (notes:write)');
	});

	it('a server that keeps refusing (the error named only in the body) gets two step-up sign-ins, then a tool error', async () => {
		await remote.admin('/admin/step-up?mode=never');
		for (let stepUp = 1; stepUp <= 2; stepUp++) {
			expect(await firstToolMessage(service, 'write a note')).toMatchObject({ status: 'error', content: expect.stringContaining('needs sign-in') });
			expect(await status()).toBe('sign-in');
			await signIn();
		}
		expect(await authorizations()).toEqual(['', 'notes:write', 'notes:write', 'notes:write']);
		const last = await firstToolMessage(service, 'write a note');
		expect(last.status).toBe('error');
		expect(last.content).toContain('refused the request for want of scope "notes:write", after 2 sign-ins');
		expect(await status()).toBe('ok');
		expect(await authorizations()).toHaveLength(4);
	});
});
