import { describe, expect, it } from 'vitest';
import { presentedToken, tokenMatches } from '../../../src/lib/server/http/token-check';
import { clearedSessionCookies, sessionCookie, sessionCookieValues } from '../../../src/lib/server/http/session-cookie';

const TOKEN = 'k3y-0f-at-least-16.chars';

describe('token check', () => {
	it.each([
		['Bearer abc', 'abc'],
		['bearer abc', 'abc'],
		['Bearer   abc  ', 'abc'],
		['Basic dXNlcjpwYXNz', null],
		['Bearer', null],
		['Bearer a b', null],
		['abc', null],
		['', null]
	])('Authorization %j presents %j', (authorization, token) => {
		expect(presentedToken(authorization)).toBe(token);
	});

	it('matches only the exact token', () => {
		expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
		for (const wrong of ['', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), ` ${TOKEN}`, 'x'.repeat(10_000)]) {
			expect(tokenMatches(wrong, TOKEN), wrong.slice(0, 30)).toBe(false);
		}
	});

	it('keeps a session id in an HttpOnly, SameSite=Strict cookie, Secure only over https', () => {
		expect(sessionCookie('id', 2592000, false)).toBe('sophos_session=id; Path=/; Max-Age=2592000; HttpOnly; SameSite=Strict');
		expect(sessionCookie('id', 60, true)).toBe('sophos_session=id; Path=/; Max-Age=60; HttpOnly; SameSite=Strict; Secure');
		expect(clearedSessionCookies()).toEqual([
			'sophos_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict',
			'sophos_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict'
		]);
	});

	it('reads every session cookie sent, a planted one beside the real one too (issue 21)', () => {
		expect(sessionCookieValues(null)).toEqual([]);
		expect(sessionCookieValues('a=1; sophos_session=planted; b=2;sophos_session=real')).toEqual(['planted', 'real']);
		expect(sessionCookieValues('sophos_token=old; xsophos_session=x; sophos_session')).toEqual([]);
	});
});
