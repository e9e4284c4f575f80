/**
 * Pure. The cookie the page's session id travels in, so an EventSource (which cannot send headers)
 * is signed in too. HttpOnly: no script reads it, not even an injected one. SameSite=Strict: no
 * other site's request carries it. Secure when the page that signs in was loaded over https.
 * It holds a session id (session-keeper.ts), never SOPHOS_TOKEN.
 */
export const SESSION_COOKIE = 'sophos_session';

/** The cookie that held SOPHOS_TOKEN itself before issue 21, expired at sign-in and logout. */
const LEGACY_COOKIE = 'sophos_token';

/** `id` is base64url (session-keeper.ts), valid in a cookie value as it is. */
export function sessionCookie(id: string, maxAgeS: number, secure: boolean): string {
	return `${SESSION_COOKIE}=${id}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/**
 * Tells the browser to drop the session cookie (a logout, an ended session) and the legacy one.
 * Without Secure: a browser lets any response of the cookie's own site expire it.
 */
export function clearedSessionCookies(): string[] {
	return [SESSION_COOKIE, LEGACY_COOKIE].map((name) => `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`);
}

/**
 * Every value the Cookie header gives the session cookie, in the order sent. Cookies ignore ports,
 * so a page on another port of this host can set one of the same name (with a longer Path it is
 * even sent first); a parser that keeps one value per name (SvelteKit's cookies.get keeps the
 * first) would read the planted one and never the person's, so all are read and any live one counts.
 */
export function sessionCookieValues(header: string | null): string[] {
	if (header === null) return [];
	const values: string[] = [];
	for (const part of header.split(';')) {
		const eq = part.indexOf('=');
		if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) values.push(part.slice(eq + 1).trim());
	}
	return values;
}
