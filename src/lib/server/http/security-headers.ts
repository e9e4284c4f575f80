/**
 * Pure. Headers every response carries, whatever route made it. The page's Content-Security-Policy
 * is SvelteKit's (svelte.config.js) and left as it is.
 */
const EVERY_RESPONSE: Readonly<Record<string, string>> = {
	// A JSON body or an export is never run as a script or styled as a page, whatever a client guesses.
	'X-Content-Type-Options': 'nosniff',
	// Conversation ids in the page's URL (?c=) do not travel to the sites its links open.
	'Referrer-Policy': 'no-referrer',
	// Another site cannot even load a response of ours as an image or a script to probe it.
	'Cross-Origin-Resource-Policy': 'same-origin'
};

/** The Cache-Control an API response ends with: no-store added to what the route set. */
export function apiCacheControl(current: string | null): string {
	if (!current) return 'no-store';
	return /(^|,)\s*no-store\s*(,|$)/i.test(current) ? current : `no-store, ${current}`;
}

/**
 * What to set on a response to `pathname`. Conversations and exports must not stay in a browser's
 * or a proxy's cache, so every /api response is no-store (SSE keeps its no-transform).
 */
export function securityHeaders(pathname: string, cacheControl: string | null): Record<string, string> {
	return pathname === '/api' || pathname.startsWith('/api/')
		? { ...EVERY_RESPONSE, 'Cache-Control': apiCacheControl(cacheControl) }
		: { ...EVERY_RESPONSE };
}
