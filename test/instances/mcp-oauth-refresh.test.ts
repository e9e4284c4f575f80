// Two instances on one PostgreSQL database share a remote MCP server's OAuth tokens: when both find
// the token about to expire, or both meet a 401, the token is refreshed once. The authorization
// server (test/support/oauth-mcp-server.ts) rotates refresh tokens, so a second refresh of the same
// one would be refused and counted: a lock that let both through fails this test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerOAuth } from '../../src/lib/server/mcp/oauth/server-oauth';
import { beginSignIn, completeSignIn } from '../../src/lib/server/mcp/oauth/sign-in-flow';
import { followRedirects, OAuthServer } from '../support/oauth-servers';
import { useInstances, type Instances } from '../support/pg-instances';

const REDIRECT = 'http://127.0.0.1:9/api/mcp/remote/callback';

/** Resolves once a connection of the database waits for an advisory lock: the second refresh, queued behind the first. */
async function waitingForLock(instances: Instances): Promise<void> {
	for (;;) {
		const { rowCount } = await instances.a.pool.query(
			`SELECT 1 FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid WHERE l.locktype = 'advisory' AND NOT l.granted AND s.datname = current_database()`
		);
		if (rowCount) return;
	}
}

describe('OAuth tokens refreshed once across instances', () => {
	const instances = useInstances('oauth');
	let remote: OAuthServer;
	let a: ServerOAuth;
	let b: ServerOAuth;

	beforeAll(async () => {
		// A sign-in's token lives 30 s, inside the minute before expiry in which Sophos refreshes.
		remote = await OAuthServer.fixture({ firstTokenSeconds: 30 });
		const of = (storage: typeof instances.a.storage, log: (line: string) => void) =>
			new ServerOAuth({ server: 'remote', url: remote.url, storage: storage.mcpAuth, log });
		a = of(instances.a.storage, (l) => instances.a.logs.post(l));
		b = of(instances.b.storage, (l) => instances.b.logs.post(l));
	});
	afterAll(() => remote?.close());

	it('signs in on one instance; the other reads the same tokens', async () => {
		const authorization = await beginSignIn(a, REDIRECT);
		const { next } = await followRedirects(authorization.href, (url) => url.startsWith(REDIRECT));
		const back = new URL(next!);
		expect(await completeSignIn(a, { state: back.searchParams.get('state')!, code: back.searchParams.get('code')! })).toEqual({ kind: 'signed-in' });
		expect(await b.hasTokens()).toBe(true);
	});

	it('both find the token about to expire: one refresh, while the other waits on the lock, and both send the new token', async () => {
		// The first refresh is held at the token endpoint, inside the lock, until the second waits for it.
		await remote.admin('/admin/token-endpoint?mode=hold');
		const fromA = a.connectionProvider().tokens();
		await remote.admin('/admin/held', 'GET');
		const fromB = b.connectionProvider().tokens();
		await waitingForLock(instances);
		await remote.admin('/admin/release');
		const [tokenA, tokenB] = await Promise.all([fromA, fromB]);
		expect(await remote.admin('/admin/stats', 'GET')).toMatchObject({ exchanges: 1, refreshes: 1, refusedRefreshes: 0 });
		expect(tokenA!.access_token).toBe(tokenB!.access_token);
		expect(tokenA).not.toHaveProperty('refresh_token');
	});

	it('both meet a 401 on that token: one refresh again, and both have a newer token to resend with', async () => {
		await remote.admin('/admin/expire');
		expect(await Promise.all([a.recover(), b.recover()])).toEqual([true, true]);
		expect(await remote.admin('/admin/stats', 'GET')).toMatchObject({ refreshes: 2, refusedRefreshes: 0 });
		const [fromA, fromB] = await Promise.all([a.connectionProvider().tokens(), b.connectionProvider().tokens()]);
		expect(fromA!.access_token).toBe(fromB!.access_token);
	});
});
