/**
 * Pure. The cookie the page keeps SOPHOS_TOKEN in, so an EventSource (which cannot send headers)
 * is signed in too. HttpOnly: no script reads it, not even an injected one. SameSite=Strict: no
 * other site's request carries it. Secure when the page that signs in was loaded over https.
 */
export const SESSION_COOKIE = 'sophos_token';

/** 30 days: "asked for once" on a machine used every day, yet not forever. */
const MAX_AGE_S = 30 * 24 * 60 * 60;

/** `token` is SOPHOS_TOKEN, whose characters are all valid in a cookie value (settings.ts). */
export function sessionCookie(token: string, secure: boolean): string {
	return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${MAX_AGE_S}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/**
 * Tells the browser to drop a cookie that holds a wrong (an old) token, so it stops sending it.
 * Without Secure: a browser lets any response of the cookie's own site expire it.
 */
export function clearedSessionCookie(): string {
	return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`;
}
