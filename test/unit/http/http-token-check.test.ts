import { describe, expect, it } from 'vitest';
import { presentedToken, tokenMatches } from '../../../src/lib/server/http/token-check';
import { clearedSessionCookie, sessionCookie } from '../../../src/lib/server/http/session-cookie';

const TOKEN = 'k3y-0f-at-least-16.chars';

describe('token check', () => {
	it.each([
		['Bearer abc', undefined, 'abc'],
		['bearer abc', undefined, 'abc'],
		['Bearer   abc  ', undefined, 'abc'],
		['Bearer abc', 'from-cookie', 'abc'],
		[null, 'from-cookie', 'from-cookie'],
		['Basic dXNlcjpwYXNz', undefined, null],
		['Basic dXNlcjpwYXNz', 'from-cookie', null],
		['Bearer', undefined, null],
		['Bearer a b', undefined, null],
		['abc', undefined, null],
		[null, '', null],
		[null, undefined, null]
	])('Authorization %j with cookie %j presents %j', (authorization, cookie, token) => {
		expect(presentedToken(authorization, cookie)).toBe(token);
	});

	it('matches only the exact token', () => {
		expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
		for (const wrong of ['', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), ` ${TOKEN}`, 'x'.repeat(10_000)]) {
			expect(tokenMatches(wrong, TOKEN), wrong.slice(0, 30)).toBe(false);
		}
	});

	it('keeps the token in an HttpOnly, SameSite=Strict cookie, Secure only over https', () => {
		expect(sessionCookie(TOKEN, false)).toBe(`sophos_token=${TOKEN}; Path=/; Max-Age=2592000; HttpOnly; SameSite=Strict`);
		expect(sessionCookie(TOKEN, true)).toBe(`sophos_token=${TOKEN}; Path=/; Max-Age=2592000; HttpOnly; SameSite=Strict; Secure`);
		expect(clearedSessionCookie()).toBe('sophos_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
	});
});
