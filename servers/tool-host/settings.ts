// Pure. The tool host's settings, read once from its environment at start. Every problem names the
// variable; a refused token is never echoed.
import { z } from 'zod';
import { isLoopbackListenAddress, parseHostEntry, type HostEntry } from '../../src/lib/server/http/host-allow-list';

export type Settings = {
	/** TOOL_HOST_HOST: the interface to listen on (default 127.0.0.1). */
	host: string;
	/** TOOL_HOST_PORT (default 3100). */
	port: number;
	/** TOOL_HOST_TOKEN: the bearer token every request must carry; required unless only loopback can reach the host. */
	token: string | undefined;
	/** TOOL_HOST_CONFIG: the file naming the stdio servers to host (default config/tool-host.json). */
	configFile: string;
	/** TOOL_HOST_ALLOWED_HOSTS: Host header values answered besides loopback names (host or host:port). */
	allowedHosts: HostEntry[];
	/** TOOL_HOST_BODY_LIMIT: largest request body in bytes (default 1 MiB); a larger one is answered 413 unread. */
	bodyLimitBytes: number;
	/**
	 * TOOL_HOST_CALL_TIMEOUT_MS: longest a forwarded call may take in the child (default 10 min). Each
	 * Sophos instance cancels its own calls after MCP_TOOL_TIMEOUT_MS, so this only ends calls whose
	 * client vanished without cancelling.
	 */
	callTimeoutMs: number;
	/**
	 * TOOL_HOST_SESSION_IDLE_MS: a session with no request open for this long (default 10 min) is
	 * closed, so a killed instance's session does not stay; a live Sophos keeps its GET stream open.
	 */
	sessionIdleMs: number;
	/** TOOL_HOST_SHUTDOWN_GRACE_MS: how long SIGTERM lets calls in flight finish (default 10 s). */
	shutdownGraceMs: number;
};

const wholeNumber = (min: number, max: number) =>
	z
		.string()
		.trim()
		.regex(/^\d+$/, 'expected a whole number')
		.transform(Number)
		.pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** The same alphabet and length as SOPHOS_TOKEN: valid in a header as it is, too long to guess. */
const TOKEN = /^[A-Za-z0-9._~+/=-]{16,512}$/;

const EnvSchema = z.object({
	TOOL_HOST_HOST: z.string().trim().min(1).default('127.0.0.1'),
	TOOL_HOST_PORT: wholeNumber(0, 65_535).default(3100),
	TOOL_HOST_TOKEN: z.string().regex(TOKEN, '16 to 512 of A-Z a-z 0-9 . _ ~ + / = -').optional(),
	TOOL_HOST_CONFIG: z.string().default('config/tool-host.json'),
	TOOL_HOST_ALLOWED_HOSTS: z
		.string()
		.transform((value, ctx) => {
			try {
				return value.split(',').map((s) => s.trim()).filter(Boolean).map(parseHostEntry);
			} catch (e) {
				ctx.addIssue({ code: 'custom', message: (e as Error).message });
				return z.NEVER;
			}
		})
		.default([]),
	TOOL_HOST_BODY_LIMIT: wholeNumber(1024, 1024 * 1024 * 1024).default(1024 * 1024),
	// setTimeout's ceiling (about 24.8 days).
	TOOL_HOST_CALL_TIMEOUT_MS: wholeNumber(1, 2_147_483_647).default(600_000),
	TOOL_HOST_SESSION_IDLE_MS: wholeNumber(1_000, 2_147_483_647).default(600_000),
	TOOL_HOST_SHUTDOWN_GRACE_MS: wholeNumber(0, 600_000).default(10_000)
});

export class SettingsError extends Error {
	override name = 'SettingsError';
}

export function parseSettings(env: Record<string, string | undefined>): Settings {
	// An empty variable (FOO= in an env file) means unset, so the default applies.
	const present = Object.fromEntries(
		Object.keys(EnvSchema.shape).flatMap((key) => (env[key]?.trim() ? [[key, env[key]]] : []))
	);
	const parsed = EnvSchema.safeParse(present);
	if (!parsed.success) {
		const problems = parsed.error.issues.map((issue) => {
			const name = String(issue.path[0]);
			const shown = name === 'TOOL_HOST_TOKEN' ? '(hidden)' : JSON.stringify(present[name]);
			return `${name}=${shown}: ${issue.message}`;
		});
		throw new SettingsError(`Invalid settings: ${problems.join('; ')}`);
	}
	const s = parsed.data;
	// Other machines reach the host when it listens beyond loopback, or through a proxy on loopback
	// when names are allowed; either way a request must say who sent it.
	const reachable = !isLoopbackListenAddress(s.TOOL_HOST_HOST) || s.TOOL_HOST_ALLOWED_HOSTS.length > 0;
	if (reachable && s.TOOL_HOST_TOKEN === undefined) {
		const why = isLoopbackListenAddress(s.TOOL_HOST_HOST)
			? 'TOOL_HOST_ALLOWED_HOSTS is set'
			: `TOOL_HOST_HOST=${JSON.stringify(s.TOOL_HOST_HOST)} is not a loopback address`;
		throw new SettingsError(`Invalid settings: TOOL_HOST_TOKEN is required when ${why} (e.g. \`openssl rand -base64 32\`)`);
	}
	return {
		host: s.TOOL_HOST_HOST,
		port: s.TOOL_HOST_PORT,
		token: s.TOOL_HOST_TOKEN,
		configFile: s.TOOL_HOST_CONFIG,
		allowedHosts: s.TOOL_HOST_ALLOWED_HOSTS,
		bodyLimitBytes: s.TOOL_HOST_BODY_LIMIT,
		callTimeoutMs: s.TOOL_HOST_CALL_TIMEOUT_MS,
		sessionIdleMs: s.TOOL_HOST_SESSION_IDLE_MS,
		shutdownGraceMs: s.TOOL_HOST_SHUTDOWN_GRACE_MS
	};
}
