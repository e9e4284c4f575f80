/**
 * Pure. CORS for the LangGraph Agent Server protocol's routes, for the pages of ALLOWED_ORIGINS
 * only: a browser client on another origin (agent-chat-ui on its own dev server) may read their
 * answers and send the SDK's headers. Sophos's own /api stays same-origin, and every other origin
 * is still refused by the origin check before any of this applies (request-guard.ts).
 */

/** The root paths the SDK calls (agent-protocol/), each with what lies under it. */
const PROTOCOL_ROOTS = ['/info', '/ok', '/assistants', '/threads', '/runs', '/store'];

/** What the SDK and agent-chat-ui send: the token as x-api-key or Bearer, and a stream's resume point. */
const ALLOWED_HEADERS = 'content-type, x-api-key, authorization, last-event-id';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
/** Where a stream response says its run is: the SDK reads them to learn the run id and rejoin. */
const EXPOSED_HEADERS = 'Content-Location, Location';
/** How long a browser may reuse a preflight: ten minutes, so a changed ALLOWED_ORIGINS takes hold soon. */
const PREFLIGHT_MAX_AGE_S = 600;

export function isProtocolPath(pathname: string): boolean {
	return PROTOCOL_ROOTS.some((root) => pathname === root || pathname.startsWith(`${root}/`));
}

export type CorsFacts = { method: string; pathname: string; origin: string | null; requestMethod: string | null };

/** Whether the request is a CORS preflight that CORS applies to (one the origin check has let through). */
export function isPreflight(facts: CorsFacts, allowed: readonly string[]): boolean {
	return facts.method.toUpperCase() === 'OPTIONS' && facts.requestMethod !== null && corsOrigin(facts, allowed) !== null;
}

function corsOrigin(facts: CorsFacts, allowed: readonly string[]): string | null {
	return facts.origin !== null && allowed.includes(facts.origin) && isProtocolPath(facts.pathname) ? facts.origin : null;
}

/** The headers an answer to this request carries: none unless the origin is allowed and the path the protocol's. */
export function corsHeaders(facts: CorsFacts, allowed: readonly string[]): Record<string, string> {
	const origin = corsOrigin(facts, allowed);
	if (origin === null) return {};
	const headers: Record<string, string> = { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': EXPOSED_HEADERS };
	if (isPreflight(facts, allowed)) {
		headers['Access-Control-Allow-Methods'] = ALLOWED_METHODS;
		headers['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
		headers['Access-Control-Max-Age'] = String(PREFLIGHT_MAX_AGE_S);
	}
	return headers;
}
