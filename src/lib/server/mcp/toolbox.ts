import type { StructuredToolInterface } from '@langchain/core/tools';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { resolveApproval, type ApprovalMode, type DefaultApproval } from './approval-policy';
import { callSignal } from './call-signal';
import { signsInWithOAuth, type HttpServerConfig, type McpConfig } from './mcp-config';
import type { ChildLog } from '../telemetry/log-formatter';
import type { ServerOAuth } from './oauth/server-oauth';
import { SignInRequired } from './oauth/sign-in-required';
import { ServerSupervisor, type ServerStatus } from './server-supervisor';
import { createToolFilter } from './tool-filter';
import { toToolOutcome, type ToolOutcome } from './tool-result';
import type { CallAsker } from './question-router';
import { isTransportGone } from './transport-errors';

export type ToolboxOptions = {
	/** Per call (MCP_TOOL_TIMEOUT_MS); on expiry the server gets `notifications/cancelled`. */
	toolTimeoutMs: number;
	/** Longest result that enters the thread (TOOL_RESULT_MAX_CHARS); the rest is cut with a note. */
	maxResultChars: number;
	allow?: string[];
	deny?: string[];
	/** TOOL_APPROVAL: the mode of tools that mcp.json says nothing about (default `writes`). */
	approval?: DefaultApproval;
	/** A remote server's OAuth sign-in, for every server that may ask for one (mcp-config.ts signsInWithOAuth). */
	oauth?: (name: string, config: HttpServerConfig) => ServerOAuth;
	log?: (line: string) => void;
	/** Where stdio children's stderr lines go (telemetry/log-formatter.ts createChildLog). */
	childLog?: ChildLog;
};

/** A tool the model may call, found by its `server__tool` name. */
export type ResolvedTool = {
	name: string;
	server: ServerSupervisor;
	tool: string;
	/** readOnlyHint, believed only from a `trusted` server: a call that changes nothing. */
	readOnly: boolean;
	/** From a trusted server's annotations (readOnlyHint or idempotentHint), unless config overrides. */
	safeToRepeat: boolean;
	/**
	 * Whether a new branch that repeats a call of this tool made elsewhere makes it again rather
	 * than reusing that result: only a read (readOnlyHint), unless config's `safeToRepeat` says so.
	 */
	repeatsInNewBranch: boolean;
	/** `auto` or `ask`: a `deny` tool is never offered nor resolved. */
	approval: Exclude<ApprovalMode, 'deny'>;
	/**
	 * openWorldHint: the tool reaches outside (the web), so what it is sent can leave the machine and
	 * what it returns is untrusted content. MCP's default is true: only a trusted server's explicit
	 * `false` makes it false.
	 */
	openWorld: boolean;
	/** mcp.json `private`: its results are private data (the memory graph). */
	private: boolean;
};

/**
 * The agent's tools: every configured MCP server under its own supervisor. A server that is down
 * costs only its own tools; the agent runs with the ones that are up.
 */
export class Toolbox {
	private readonly servers: ServerSupervisor[];
	private readonly offered: (name: string) => boolean;

	constructor(
		private readonly config: McpConfig,
		private readonly options: ToolboxOptions
	) {
		this.servers = Object.entries(config).map(
			([name, c]) => new ServerSupervisor(
					name,
					c,
					options.log,
					options.oauth && signsInWithOAuth(c) ? options.oauth(name, c) : undefined,
					options.childLog
				)
		);
		this.offered = createToolFilter(options.allow, options.deny);
	}

	/** Starts every server; resolves when each is up or has failed, never rejects. */
	async start(): Promise<void> {
		await Promise.all(this.servers.map((s) => s.currentTools()));
	}

	/** The tools to offer the model now, starting servers that are due a restart. */
	async definitions(): Promise<StructuredToolInterface[]> {
		const perServer = await Promise.all(this.servers.map((s) => s.currentTools()));
		return perServer.flat().filter((t) => this.resolve(t.name) !== undefined);
	}

	resolve(name: string): ResolvedTool | undefined {
		if (!this.offered(name)) return undefined;
		const server = this.servers.find((s) => name.startsWith(`${s.name}__`));
		if (!server) return undefined;
		const tool = name.slice(server.name.length + 2);
		const config = this.config[server.name];
		// Hints from a server that is not trusted are not read at all: as if it declared none.
		const annotations = config?.trusted === true ? server.annotationsOf(tool) : undefined;
		const override = config?.safeToRepeat;
		const configured = typeof override === 'object' ? override[tool] : override;
		const declared = annotations ? annotations.readOnlyHint === true || annotations.idempotentHint === true : false;
		const readOnly = annotations?.readOnlyHint === true;
		const approval = resolveApproval({
			setting: config?.approval,
			tool,
			readOnly,
			fallback: this.options.approval ?? 'writes'
		});
		if (approval === 'deny') return undefined;
		const privacy = config?.private;
		return {
			name,
			server,
			tool,
			readOnly,
			safeToRepeat: configured ?? declared,
			repeatsInNewBranch: configured ?? readOnly,
			approval,
			openWorld: annotations?.openWorldHint !== false,
			private: (typeof privacy === 'object' ? privacy[tool] : privacy) ?? false
		};
	}

	/**
	 * Calls a resolved tool; failures of the call itself come back as an error outcome for the model.
	 * A write waits its turn behind the server's other writes (server-supervisor.ts takeTurn), and the
	 * turn covers `beforeSend` (run when the request is about to go out) and `afterAnswer` (run with
	 * the outcome): the next write starts only once this one's outcome is recorded, so a process that
	 * dies then has recorded no later call as sent. `trace`: `traceparent`/`tracestate` for `params._meta`.
	 * `ask`: who answers the server's questions during the call (elicitation).
	 */
	async call(
		target: ResolvedTool,
		args: Record<string, unknown>,
		options: {
			signal?: AbortSignal;
			idempotencyKey: string;
			beforeSend?: () => Promise<void>;
			afterAnswer?: (outcome: ToolOutcome) => Promise<void>;
			trace?: Record<string, string>;
			ask?: CallAsker;
		}
	): Promise<ToolOutcome> {
		return target.server.takeTurn(!target.readOnly, async () => {
			const outcome = await this.callOnce(target, args, options);
			await options.afterAnswer?.(outcome);
			return outcome;
		});
	}

	private async callOnce(
		target: ResolvedTool,
		args: Record<string, unknown>,
		options: { signal?: AbortSignal; idempotencyKey: string; beforeSend?: () => Promise<void>; trace?: Record<string, string>; ask?: CallAsker }
	): Promise<ToolOutcome> {
		const { toolTimeoutMs, maxResultChars } = this.options;
		const own = callSignal(options.signal);
		try {
			const result = await target.server.callTool(target.tool, args, {
				signal: own.signal,
				timeoutMs: toolTimeoutMs,
				// Trace context beside the key, as the MCP semantic conventions place it.
				meta: { ...options.trace, idempotencyKey: options.idempotencyKey },
				beforeSend: options.beforeSend,
				ask: options.ask
			});
			return toToolOutcome(result, maxResultChars);
		} catch (e) {
			if (options.signal?.aborted) throw e;
			if (e instanceof SignInRequired) {
				return {
					status: 'error',
					text: `The tool ${target.name} was not called: its server "${e.server}" needs sign-in. Ask the person to sign in to "${e.server}" from Sophos's sidebar, then try again.`
				};
			}
			const message = e instanceof Error ? e.message : String(e);
			if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
				return { status: 'error', text: `The tool ${target.name} timed out after ${toolTimeoutMs} ms and was cancelled.` };
			}
			if (isTransportGone(e)) {
				target.server.markDown(message);
				return {
					status: 'error',
					text: `The tool server for ${target.name} is not running (${message}); it will be restarted on its next use.`
				};
			}
			return { status: 'error', text: `The tool ${target.name} failed: ${message}` };
		} finally {
			own.detach();
		}
	}

	/** Every configured server's supervisor, in mcp.json's order. */
	all(): readonly ServerSupervisor[] {
		return this.servers;
	}

	/** The supervisor of a configured server, by its name. */
	server(name: string): ServerSupervisor | undefined {
		return this.servers.find((s) => s.name === name);
	}

	status(): ServerStatus[] {
		return this.servers.map((s) => s.status());
	}

	/** The servers not up now, by name: a run starting without their tools warns of them (TOOLS_UNAVAILABLE). */
	unavailable(): string[] {
		return this.status().flatMap((s) => (s.state === 'up' ? [] : [s.name]));
	}

	async close(): Promise<void> {
		await Promise.all(this.servers.map((s) => s.close()));
	}
}
