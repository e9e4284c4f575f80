import path from 'node:path';
import { z } from 'zod';
import { parseCrashAt } from './crash-points';
import { isLoopbackListenAddress, parseHostEntry } from './http/host-allow-list';
import { parseOrigin } from './http/origin-check';
import { parseModelId } from '../protocol/model-id';
import { parseCheckpointRetention } from './checkpoint/retention-plan';
import { configuredSecrets, SECRET_SETTINGS, URL_SETTINGS } from './secrets/configured-secrets';
import { displayUrl } from './secrets/display-url';
import { Redactor } from './secrets/redactor';
import { OTLP_PROTOCOLS, SAMPLERS, parseOtlpHeaders } from './telemetry/otlp-settings';

/**
 * Every setting the service reads from its environment, parsed once at start.
 * An empty string counts as unset, so `FOO=` in an env file falls back to the default.
 */
const boolean = z
	.string()
	.transform((v) => v.toLowerCase())
	.pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no']))
	.transform((v) => v === 'true' || v === '1' || v === 'yes');

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const list = z
	.string()
	.transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

/** A comma-separated list whose every entry `parse` accepts; the first it refuses is the issue. */
const parsedList = <T>(parse: (entry: string) => T) =>
	list.transform((entries, ctx) => {
		try {
			return entries.map(parse);
		} catch (e) {
			ctx.addIssue({ code: 'custom', message: (e as Error).message });
			return z.NEVER;
		}
	});

/**
 * Long enough not to be guessed through the throttle, and made only of characters that are valid
 * in a header and a cookie value as they are (e.g. `openssl rand -base64 32`, `uuidgen`).
 */
const TOKEN = /^[A-Za-z0-9._~+/=-]{16,512}$/;

const otlpEndpoint = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });

const otlpProtocol = z.enum(OTLP_PROTOCOLS, { error: 'expected http/protobuf or http/json (grpc is not supported)' });

const otlpHeaders = z.string().transform((v, ctx) => {
	try {
		return parseOtlpHeaders(v);
	} catch (e) {
		ctx.addIssue({ code: 'custom', message: (e as Error).message });
		return z.NEVER;
	}
});

export const SettingsSchema = z.object({
	OLLAMA_HOST: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:11434'),
	OLLAMA_MODEL: z.string().trim().min(1).default('qwen3'),
	OLLAMA_THINK: boolean.default(false),
	OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
	OPENAI_API_KEY: z.string().trim().optional(),
	DEFAULT_MODEL: z
		.string()
		.trim()
		.refine((v) => parseModelId(v) !== null, 'expected <provider>/<model>, e.g. ollama/qwen3 or openai/qwen3-8b')
		.optional(),
	CONFIG_DIR: z.string().default('config'),
	DATABASE_PATH: z.string().default('data/sophos.db'),
	/**
	 * postgres://user:password@host:port/database: every table in PostgreSQL, shared by any number of
	 * instances; unset, the SQLite file at DATABASE_PATH. A secret (it may hold a password).
	 */
	DATABASE_URL: z
		.string()
		.trim()
		.refine((v) => {
			try {
				const url = new URL(v);
				return /^postgres(ql)?:$/.test(url.protocol) && (url.hostname !== '' || url.searchParams.has('host'));
			} catch {
				return false;
			}
		}, 'expected postgres://user:password@host:port/database')
		.optional(),
	/**
	 * PostgreSQL only: the most connections this instance's pool opens for runs' writes and requests'
	 * reads. The instance holds two more (its notify bus's LISTEN and its lease heartbeat's), so a
	 * server serves N instances when max_connections ≥ N × (DATABASE_POOL_MAX + 2) + its reserved
	 * slots (README, Several instances).
	 */
	DATABASE_POOL_MAX: integer(1, 1_000).default(10),
	/** How long a run's owner holds it without a heartbeat before another instance takes it over (PostgreSQL only). */
	RUN_LEASE_MS: integer(500, 600_000).default(10_000),
	/** On PostgreSQL: how long a run's kept events stay after it ends, for readers on other instances. */
	RUN_EVENTS_KEEP_MS: integer(1_000, 7 * 24 * 3_600_000).default(300_000),
	/**
	 * A stable name for this instance on a shared database (a host or pod name). A restart under the
	 * same name recovers the runs its previous process left at once, instead of after their lease.
	 * Two live processes must never share one. Unset: a new random name per start.
	 */
	SOPHOS_INSTANCE_ID: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, '1 to 128 of A-Z a-z 0-9 . _ : -').optional(),
	MEMORY_FILE_PATH: z.string().default('data/memory.jsonl'),
	AGENT_RECURSION_LIMIT: integer(1, 10_000).default(25),
	HOST: z.string().default('127.0.0.1'),
	PORT: integer(0, 65_535).default(3000),
	ALLOWED_HOSTS: parsedList(parseHostEntry).default([]),
	ALLOWED_ORIGINS: parsedList(parseOrigin).default([]),
	/**
	 * The origin people open Sophos at when a proxy stands in front of it (`https://sophos.example`):
	 * the OAuth callback URL given to remote MCP servers' authorization servers is built on it. Unset:
	 * on the origin of the request that begins the sign-in.
	 */
	PUBLIC_ORIGIN: z
		.string()
		.transform((v, ctx) => {
			try {
				return parseOrigin(v);
			} catch (e) {
				ctx.addIssue({ code: 'custom', message: (e as Error).message });
				return z.NEVER;
			}
		})
		.optional(),
	SOPHOS_TOKEN: z.string().regex(TOKEN, '16 to 512 of A-Z a-z 0-9 . _ ~ + / = -').optional(),
	SOPHOS_INSECURE_NO_AUTH: boolean.default(false),
	SSE_BUFFER_EVENTS: integer(100, 10_000_000).default(10_000),
	MAX_CONCURRENT_RUNS: integer(1, 10_000).default(32),
	MAX_QUEUED_MESSAGES: integer(0, 10_000).default(20),
	MAX_TOOL_CALLS_PER_STEP: integer(1, 1_000).default(10),
	MAX_STREAMS_PER_RUN: integer(1, 1_000).default(10),
	READINESS_CACHE_MS: integer(0, 60_000).default(1_000),
	SSE_READER_BACKLOG_BYTES: integer(16_384, 1_073_741_824).default(1_048_576),
	MAX_MESSAGE_CHARS: integer(1, 10_000_000).default(32_000),
	/**
	 * What POST /api/conversations/import reads at most, refused (413) from Content-Length or while
	 * counting, before parsing. The default stays under adapter-node's BODY_SIZE_LIMIT (`2M` as `npm
	 * start` sets it), so this cap, with its JSON error, is the one a client meets; above it, raise
	 * BODY_SIZE_LIMIT with it.
	 */
	MAX_IMPORT_BYTES: integer(1_024, 1_073_741_824).default(1_572_864),
	MCP_TOOL_TIMEOUT_MS: integer(1, 3_600_000).default(60_000),
	TOOL_RESULT_MAX_CHARS: integer(100, 10_000_000).default(20_000),
	/**
	 * Longest MCP resource (all its text contents) read or attached to a message, and longest prompt's
	 * messages: past it the request is refused (413 MCP_CONTENT_TOO_LARGE), since a cut document is
	 * not what the person chose to send.
	 */
	MCP_CONTENT_MAX_CHARS: integer(100, 10_000_000).default(20_000),
	MCP_TOOLS_ALLOW: list.optional(),
	MCP_TOOLS_DENY: list.optional(),
	UNFINISHED_TOOL_CALLS: z.enum(['auto', 'repeat', 'report', 'ask']).default('auto'),
	TOOL_APPROVAL: z.enum(['writes', 'all', 'none']).default('writes'),
	APPROVAL_TIMEOUT_MS: integer(1_000, 365 * 24 * 3_600_000).default(24 * 3_600_000),
	/** A tool server's question during a call nobody answers within this is answered `cancel`. */
	ELICITATION_TIMEOUT_MS: integer(100, 24 * 3_600_000).default(600_000),
	EXFILTRATION_GUARD: boolean.default(true),
	/** A call of a tool that may write, once untrusted content (an open-world tool's result) is in the context. */
	UNTRUSTED_CONTENT_WRITES: z.enum(['ask', 'auto']).default('auto'),
	SHUTDOWN_DRAIN_MS: integer(0, 600_000).default(10_000),
	AUTO_RESUME: boolean.default(false),
	AUTO_RESUME_MAX: integer(1, 100).default(3),
	// Issue 21, slow clients (http/connection-guard.ts): how long a request's headers, and then its
	// body, may take to arrive, and how many connections one client (loopback counts as one) may hold.
	HEADERS_TIMEOUT_MS: integer(100, 600_000).default(20_000),
	BODY_TIMEOUT_MS: integer(100, 3_600_000).default(60_000),
	MAX_CONNECTIONS_PER_CLIENT: integer(1, 100_000).default(64),
	CHECKPOINT_RETENTION: z
		.string()
		.default('all')
		.transform((v, ctx) => {
			try {
				return parseCheckpointRetention(v);
			} catch (e) {
				ctx.addIssue({ code: 'custom', message: (e as Error).message });
				return z.NEVER;
			}
		}),
	/** Sent as Ollama's options.num_predict and OpenAI's max_tokens; unset, the server's own limit applies. */
	MAX_ANSWER_TOKENS: integer(1, 1_000_000).optional(),
	/** What one step keeps of an answer, cut there with a note whatever the server sends (issue 21). */
	MAX_ANSWER_CHARS: integer(1_000, 10_000_000).default(200_000),
	SOPHOS_CRASH_AT: z
		.string()
		.transform((v, ctx) => parseCrashAt(v) ?? (ctx.addIssue({ code: 'custom', message: 'expected <point>[:<n>]' }), z.NEVER))
		.optional(),
	/** `text` (the default) or `json`: one JSON object a line, with the run's and its span's ids. */
	LOG_FORMAT: z.enum(['text', 'json']).default('text'),
	/** Traces are exported over OTLP/HTTP only when one of these two is set (see README Monitoring). */
	OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint.optional(),
	OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpEndpoint.optional(),
	OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
	OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
	/** `key=value,…`, percent-encoded: a collector's credentials, so a secret. */
	OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders.optional(),
	OTEL_EXPORTER_OTLP_TRACES_HEADERS: otlpHeaders.optional(),
	OTEL_EXPORTER_OTLP_TIMEOUT: integer(1, 600_000).default(10_000),
	OTEL_BSP_SCHEDULE_DELAY: integer(0, 600_000).default(5_000),
	OTEL_SERVICE_NAME: z.string().trim().min(1).max(256).default('sophos'),
	OTEL_TRACES_SAMPLER: z.enum(SAMPLERS).default('parentbased_always_on'),
	OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
	OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: boolean.default(false)
});

export type Settings = z.infer<typeof SettingsSchema> & {
	/** Absolute paths derived from the settings above. */
	paths: { database: string; configDir: string; memoryFile: string };
	/** DEFAULT_MODEL, or `ollama/$OLLAMA_MODEL`. */
	defaultModel: string;
	/**
	 * Whether Ollama is one of the providers: unless DEFAULT_MODEL names another one and no OLLAMA_*
	 * setting is given, so a setup with LM Studio alone is not reported down for want of Ollama.
	 */
	ollamaEnabled: boolean;
};

type Exposure = Pick<z.infer<typeof SettingsSchema>, 'HOST' | 'ALLOWED_HOSTS'>;

/**
 * Other machines can reach the service: it listens beyond loopback, or the operator named hosts
 * for a LAN name or a reverse proxy, which forwards their requests from the proxy's loopback.
 */
function isReachable(s: Exposure): boolean {
	return !isLoopbackListenAddress(s.HOST) || s.ALLOWED_HOSTS.length > 0;
}

function exposureReason(s: Exposure): string {
	return isLoopbackListenAddress(s.HOST)
		? 'ALLOWED_HOSTS is set (other machines reach the service through it)'
		: `HOST=${JSON.stringify(s.HOST)} (not a loopback address)`;
}

/** Said at start: the service is reachable from other machines and nothing asks who is asking. */
export function exposureWarning(s: Settings): string | null {
	if (!isReachable(s) || s.SOPHOS_TOKEN !== undefined) return null;
	return (
		`WARNING: no token guards this service although ${exposureReason(s)}, because SOPHOS_INSECURE_NO_AUTH=true: ` +
		'anyone who can reach it can read, start and delete every conversation'
	);
}

export class SettingsError extends Error {
	override name = 'SettingsError';
}

export function parseSettings(env: Record<string, string | undefined>, cwd = process.cwd()): Settings {
	const present = Object.fromEntries(
		Object.keys(SettingsSchema.shape).flatMap((key) => {
			const value = env[key];
			return value === undefined || value.trim() === '' ? [] : [[key, value]];
		})
	);
	const result = SettingsSchema.safeParse(present);
	if (!result.success) {
		// A secret that was refused is still someone's secret: it stays out of the log, and so do
		// the credentials of a URL and the secrets of every other setting, refused or not.
		const redactor = new Redactor(configuredSecrets({ settings: present }));
		const problems = result.error.issues.map((issue) => {
			const name = String(issue.path[0]);
			const value = present[name];
			const shown = SECRET_SETTINGS.has(name) ? '(hidden)' : JSON.stringify(redactor.redact(URL_SETTINGS.has(name) ? displayUrl(String(value)) : String(value)));
			return `${name}=${shown}: ${issue.message}`;
		});
		throw new SettingsError(`Invalid settings: ${problems.join('; ')}`);
	}
	const s = result.data;
	if (isReachable(s) && s.SOPHOS_TOKEN === undefined && !s.SOPHOS_INSECURE_NO_AUTH) {
		throw new SettingsError(
			`Invalid settings: SOPHOS_TOKEN is required when ${exposureReason(s)}; ` +
				'set SOPHOS_TOKEN (e.g. `openssl rand -base64 32`), or SOPHOS_INSECURE_NO_AUTH=true to run without one on purpose'
		);
	}
	const abs = (p: string) => (p === ':memory:' ? p : path.resolve(cwd, p));
	const defaultModel = s.DEFAULT_MODEL ?? `ollama/${s.OLLAMA_MODEL}`;
	return {
		...s,
		defaultModel,
		ollamaEnabled:
			defaultModel.startsWith('ollama/') || ['OLLAMA_HOST', 'OLLAMA_MODEL', 'OLLAMA_THINK'].some((key) => key in present),
		paths: {
			database: abs(s.DATABASE_PATH),
			configDir: abs(s.CONFIG_DIR),
			memoryFile: abs(s.MEMORY_FILE_PATH)
		}
	};
}
