import type { Handle, RequestEvent, ServerInit } from '@sveltejs/kit';
import { startRuntime } from '$lib/server/runtime';
import { runtime, setRuntime } from '$lib/server/runtime-instance';
import { exposureWarning, parseSettings } from '$lib/server/settings';
import { installShutdown } from '$lib/server/shutdown';
import { AuthThrottle } from '$lib/server/http/auth-throttle';
import { RequestGuard, refusalResponse, type RequestFacts } from '$lib/server/http/request-guard';
import { securityHeaders } from '$lib/server/http/security-headers';
import { SESSION_COOKIE } from '$lib/server/http/session-cookie';

let guard: RequestGuard;

// Runs before adapter-node opens the port: a bad setting or config stops the start with its message.
export const init: ServerInit = async () => {
	// adapter-node reads HOST only after this hook, and without it would listen on every interface.
	// Loopback is the documented default, and the token rule is judged on the address it listens on.
	process.env.HOST ||= '127.0.0.1';
	// What Sophos and its MCP children create is the user's alone. The database opens its files 0600
	// itself, but the memory server replaces memory.jsonl by a rename: only the umask sets that mode.
	process.umask(0o077);
	const settings = parseSettings(process.env);
	const warning = exposureWarning(settings);
	if (warning) console.warn(warning);
	guard = new RequestGuard({
		allowedHosts: settings.ALLOWED_HOSTS,
		allowedOrigins: settings.ALLOWED_ORIGINS,
		token: settings.SOPHOS_TOKEN,
		throttle: new AuthThrottle()
	});
	const runtime = await startRuntime(settings, process.env);
	setRuntime(runtime);
	installShutdown(runtime);
};

function requestFacts(event: RequestEvent): RequestFacts {
	const headers = event.request.headers;
	return {
		method: event.request.method,
		pathname: event.url.pathname,
		host: headers.get('host'),
		origin: headers.get('origin'),
		fetchSite: headers.get('sec-fetch-site'),
		authorization: headers.get('authorization'),
		cookie: event.cookies.get(SESSION_COOKIE),
		clientAddress: () => event.getClientAddress()
	};
}

function withSecurityHeaders(response: Response, pathname: string): Response {
	const headers = securityHeaders(pathname, response.headers.get('cache-control'));
	for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
	return response;
}

// The guard comes first, on every route (page, API, SSE, exports, health), before a route runs.
// Then a burst of requests, which arrives in one poll phase where each would be handled in full
// before any timer, stream or other request got the event loop, takes turns like runs do.
export const handle: Handle = async ({ event, resolve }) => {
	const began = performance.now();
	const response = await guarded({ event, resolve });
	runtime().telemetry.httpRequest(event.route.id ?? 'unmatched', response.status, performance.now() - began);
	return response;
};

const guarded: Handle = async ({ event, resolve }) => {
	const facts = requestFacts(event);
	const refused = guard.check(facts);
	if (refused) return withSecurityHeaders(refusalResponse(refused), facts.pathname);
	event.locals.signIn = (token) => guard.signIn(token, facts);
	// Liveness answers at once: it does no work, and a probe queued behind a long answer's lines would
	// report a service that is keeping up as slow.
	const wait = facts.pathname === '/api/healthz' ? undefined : runtime().turn();
	if (wait) await wait;
	return withSecurityHeaders(await resolve(event), facts.pathname);
};
