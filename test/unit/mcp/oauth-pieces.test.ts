import { describe, expect, it } from 'vitest';
import { isExpiring, readClient, readTokens, tokensToStore } from '../../../src/lib/server/mcp/oauth/stored-credentials';
import { configuredClient } from '../../../src/lib/server/mcp/oauth/oauth-settings';
import { oauthCallbackUrl, OAUTH_CALLBACK_PATH } from '../../../src/lib/server/http/oauth-callback-url';
import { signInPage } from '../../../src/lib/server/http/sign-in-page';

const NOW = new Date(Date.UTC(2026, 0, 1));

describe('stored OAuth credentials', () => {
	it('stores tokens with the instant their access token expires, and reads them back with their issuer', () => {
		const stored = tokensToStore({ access_token: 'a', token_type: 'bearer', expires_in: 90, refresh_token: 'r', issuer: 'https://as.example/' }, NOW);
		expect(stored.expiresAt).toBe('2026-01-01T00:01:30.000Z');
		expect(readTokens(stored.tokens)).toEqual({ access_token: 'a', token_type: 'bearer', expires_in: 90, refresh_token: 'r', issuer: 'https://as.example/' });
		expect(tokensToStore({ access_token: 'a', token_type: 'bearer' }, NOW).expiresAt).toBeNull();
	});

	it('reads nothing from a row that holds none or holds what is not tokens or a client', () => {
		expect(readTokens(null)).toBeUndefined();
		expect(readTokens('{"token_type":"bearer"}')).toBeUndefined();
		expect(readClient('{"client_id":"c"}')).toBeUndefined();
		expect(readClient('{"client_id":"c","redirect_uris":["http://127.0.0.1:3000/api/mcp/x/callback"]}')).toMatchObject({ client_id: 'c' });
	});

	it('refreshes within the margin before expiry, and never a token without a lifetime', () => {
		expect(isExpiring('2026-01-01T00:01:00.000Z', NOW, 60_000)).toBe(true);
		expect(isExpiring('2026-01-01T00:01:00.001Z', NOW, 60_000)).toBe(false);
		expect(isExpiring('2025-12-31T00:00:00.000Z', NOW, 60_000)).toBe(true);
		expect(isExpiring(null, NOW, 60_000)).toBe(false);
	});

	it("uses mcp.json's client when it names one", () => {
		expect(configuredClient(undefined)).toBeUndefined();
		expect(configuredClient({ scope: 'read' })).toBeUndefined();
		expect(configuredClient({ clientId: 'c' })).toEqual({ client_id: 'c' });
		expect(configuredClient({ clientId: 'c', clientSecret: 's' })).toEqual({ client_id: 'c', client_secret: 's' });
	});
});

describe('the OAuth callback', () => {
	it('is on PUBLIC_ORIGIN when set, else on the request host over http', () => {
		expect(oauthCallbackUrl('docs', 'https://sophos.example', new URL('https://127.0.0.1:3000/api/mcp/docs/sign-in'))).toBe(
			'https://sophos.example/api/mcp/docs/callback'
		);
		expect(oauthCallbackUrl('docs', undefined, new URL('https://localhost:3000/api/mcp/docs/sign-in'))).toBe('http://localhost:3000/api/mcp/docs/callback');
	});

	it('is matched by its exact path only', () => {
		expect(OAUTH_CALLBACK_PATH.test('/api/mcp/docs/callback')).toBe(true);
		expect(OAUTH_CALLBACK_PATH.test('/api/mcp/docs/callback/')).toBe(false);
		expect(OAUTH_CALLBACK_PATH.test('/api/mcp/do%63s/callback')).toBe(false);
		expect(OAUTH_CALLBACK_PATH.test('/api/mcp/docs/sign-in')).toBe(false);
		expect(OAUTH_CALLBACK_PATH.test('/%61pi/mcp/docs/callback')).toBe(false);
	});

	it('answers a page with every text escaped and no script', async () => {
		const page = signInPage(400, 'Sign-in refused', 'answered <script>alert(1)</script> & "more"');
		expect(page.status).toBe(400);
		expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
		const html = await page.text();
		expect(html).toContain('answered &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;more&quot;');
		expect(html).not.toContain('<script>');
	});
});
