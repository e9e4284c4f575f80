import type { Handle, RequestEvent, ServerInit } from '@sveltejs/kit';
import { startRuntime } from '$lib/server/runtime';
import { runtime, setRuntime } from '$lib/server/runtime-instance';
import { exposureWarning, parseSettings } from '$lib/server/settings';
import { installShutdown } from '$lib/server/shutdown';
import { refusalLine } from '$lib/server/telemetry/log-formatter';
import { AuthThrottle } from '$lib/server/http/auth-throttle';
import { ConnectionGuard } from '$lib/server/http/connection-guard';
import { RequestGuard, refusalResponse, type RequestFacts } from '$lib/server/http/request-guard';
import { corsHeaders, isPreflight } from '$lib/server/http/cors';
import { securityHeaders } from '$lib/server/http/security-headers';
import { SESSION_COOKIE } from '$lib/server/http/session-cookie';
import { redactor } from '$lib/server/secrets/redactor';
import { hostHeaderCount } from '$lib/server/http/host-allow-list';
import { sessionCookieValues } from '$lib/server/http/session-cookie';
import { SessionKeeper } from '$lib/server/http/session-keeper';

let guard: RequestGuard;
let allowedOrigins: readonly string[] = [];

// Runs before adapter-node opens the port: a bad setting or config stops the start with its message.
export const init: ServerInit = async () => {
	try {
		await start();
	} catch (e) {
		// Node would print the error and its stack over several lines; under LOG_FORMAT=json (read
		// as written: the settings may be what failed) the refusal is one JSON line instead.
		if (process.env.LOG_FORMAT !== 'json') throw e;
		process.stderr.write(refusalLine(e) + '\n');
		process.exit(1);
	}
};

async function start(): Promise<void> {
	// adapter-node reads HOST only after this hook, and without it would listen on every interface.
	// Loopback is the documented default, and the token rule is judged on the address it listens on.
	process.env.HOST ||= '127.0.0.1';
	// What Sophos and its MCP children create is the user's alone. The database opens its files 0600
	// itself, but the memory server replaces memory.jsonl by a rename: only the umask sets that mode.
	process.umask(0o077);
	const settings = parseSettings(process.env);
	// Before the port opens, so no connection is accepted unwatched.
	new ConnectionGuard({
		headersTimeoutMs: settings.HEADERS_TIMEOUT_MS,
		bodyTimeoutMs: settings.BODY_TIMEOUT_MS,
		maxPerClient: settings.MAX_CONNECTIONS_PER_CLIENT
	}).start();
	let runtime;
	try {
		runtime = await startRuntime(settings, process.env);
	} catch (e) {
		// Node prints what stops the start as it is, cause and all: only its redacted text goes out.
		throw new Error(redactor.redact(e instanceof Error ? e.message : String(e)));
	}
	setRuntime(runtime);
	// After the runtime, which under LOG_FORMAT=json makes console lines JSON too.
	const warning = exposureWarning(settings);
	if (warning) console.warn(warning);
	const token = settings.SOPHOS_TOKEN;
	allowedOrigins = settings.ALLOWED_ORIGINS;
	guard = new RequestGuard({
		allowedHosts: settings.ALLOWED_HOSTS,
		allowedOrigins: settings.ALLOWED_ORIGINS,
		token,
		throttle: new AuthThrottle(),
		sessions: token === undefined ? undefined : new SessionKeeper(runtime.storage.sessions, token)
	});
	installShutdown(runtime);
}

function requestFacts(event: RequestEvent): RequestFacts {
	const headers = event.request.headers;
	return {
		method: event.request.method,
		pathname: event.url.pathname,
		host: headers.get('host'),
		// Without adapter-node (vite dev) there is no raw list; Node's own parser is then the judge.
		hostHeaders: event.platform ? hostHeaderCount(event.platform.req.rawHeaders) : 1,
		origin: headers.get('origin'),
		fetchSite: headers.get('sec-fetch-site'),
		authorization: headers.get('authorization'),
		apiKey: headers.get('x-api-key'),
		requestMethod: headers.get('access-control-request-method'),
		sessionIds: sessionCookieValues(headers.get('cookie')),
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
	const cors = corsHeaders({ ...facts, requestMethod: facts.requestMethod ?? null }, allowedOrigins);
	const refused = await guard.check(facts);
	if (refused) return withCors(withSecurityHeaders(refusalResponse(refused), facts.pathname), cors);
	if (isPreflight({ ...facts, requestMethod: facts.requestMethod ?? null }, allowedOrigins)) {
		return withSecurityHeaders(new Response(null, { status: 204, headers: cors }), facts.pathname);
	}
	event.locals.signIn = (token) => guard.signIn(token, facts);
	event.locals.signOut = () => guard.signOut(facts);
	// Liveness answers at once: it does no work, and a probe queued behind a long answer's lines would
	// report a service that is keeping up as slow.
	const wait = facts.pathname === '/api/healthz' ? undefined : runtime().turn();
	if (wait) await wait;
	const response = await resolve(event);
	// A body refused part way is left unread (request-body.ts): the connection ends with this answer.
	if (response.status === 413) response.headers.set('Connection', 'close');
	// The route's own path, not the one sent: `/%61pi/…` is an API answer and is kept out of caches as one.
	return withCors(withSecurityHeaders(response, event.route.id ?? facts.pathname), cors);
};

function withCors(response: Response, cors: Record<string, string>): Response {
	for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
	return response;
}
