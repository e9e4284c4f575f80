import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
	PromptListChangedNotificationSchema,
	ResourceListChangedNotificationSchema,
	type CallToolResult,
	type ToolAnnotations
} from '@modelcontextprotocol/sdk/types.js';
import type { ChildLog } from '../telemetry/log-formatter';
import { CallClock, NEVER_MS } from './call-clock';
import { isStdio, writesTakeTurns, type McpServerConfig } from './mcp-config';
import { openConnection } from './mcp-connection';
import { QuestionRouter, type CallAsker } from './question-router';
import type { ServerOAuth } from './oauth/server-oauth';
import { SignInRequired } from './oauth/sign-in-required';
import { ToolServerDown } from './transport-errors';
import { WriteTurns } from './write-turns';

/** `sign-in`: a remote server that wants an OAuth sign-in; it is not started again until there are tokens. */
export type ServerState = 'starting' | 'up' | 'down' | 'sign-in' | 'closed';

export type ServerStatus = {
	name: string;
	state: ServerState;
	tools: number;
	restarts: number;
	error?: string;
	/** Connected with an OAuth token (server-oauth.ts), so there is a sign-in to end. */
	oauth?: boolean;
};

/** Which of a server's lists it said changed (`notifications/prompts/list_changed`, `resources/list_changed`). */
export type ListChange = 'prompts' | 'resources';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/**
 * Owns one MCP server connection: starts it, notices when it dies (the transport closes), and
 * starts it again on its next use, waiting longer after each failure in a row so a server that
 * crashes at start does not get respawned on every model step.
 */
export class ServerSupervisor {
	private state: ServerState = 'down';
	private sdk: Client | null = null;
	private tools: StructuredToolInterface[] = [];
	private annotations = new Map<string, ToolAnnotations>();
	private readonly writes = new WriteTurns();
	private starting: Promise<void> | null = null;
	private failures = 0;
	private retryAt = 0;
	private restarts = 0;
	private lastError: string | undefined;
	private everUp = false;
	private readonly listChanged = new Set<(change: ListChange) => void>();
	private readonly questions: QuestionRouter;

	constructor(
		readonly name: string,
		private readonly config: McpServerConfig,
		private readonly log: (line: string) => void = console.log,
		/** A remote server's OAuth sign-in (mcp/oauth/server-oauth.ts), when it may ask for one. */
		readonly oauth?: ServerOAuth,
		/** Where a stdio child's stderr goes, line by line (telemetry/log-formatter.ts createChildLog). */
		private readonly childLog: ChildLog = (_, line) => process.stderr.write(line + '\n')
	) {
		this.questions = new QuestionRouter((line) => log(`${line} (server "${name}")`));
	}

	status(): ServerStatus {
		return {
			name: this.name,
			state: this.state,
			tools: this.state === 'up' ? this.tools.length : 0,
			restarts: this.restarts,
			...(this.lastError && this.state !== 'up' ? { error: this.lastError } : {}),
			...(this.state === 'up' && this.oauth?.sendsToken() ? { oauth: true } : {})
		};
	}

	/** The server's tools, starting it first if it is down and its backoff has passed; [] if it cannot. */
	async currentTools(now = Date.now()): Promise<StructuredToolInterface[]> {
		if (this.state === 'closed') return [];
		// Another instance's callback may have signed in: the tokens are in the shared database.
		if (this.state === 'sign-in' && !this.starting && !(await this.oauth?.hasTokens())) return [];
		if (this.state !== 'up' && !this.starting && (now >= this.retryAt || this.state === 'sign-in')) this.starting = this.start();
		if (this.starting) await this.starting;
		return this.state === 'up' ? this.tools : [];
	}

	/** How Sophos reaches it: a child's stdio, or a URL (`http`, `sse`). */
	get transport(): string {
		return isStdio(this.config) ? 'stdio' : (this.config.type ?? this.config.transport ?? 'http');
	}

	/** The MCP session of the connection now, when its transport has one (Streamable HTTP); stdio has none. */
	get sessionId(): string | undefined {
		return this.sdk?.transport?.sessionId;
	}

	/** What the server declares about its tool (by its own, unprefixed name), if it is up. */
	annotationsOf(tool: string): ToolAnnotations | undefined {
		return this.annotations.get(tool);
	}

	/**
	 * Calls a tool on the running server. Aborting `signal` or passing `timeoutMs` makes the SDK
	 * send `notifications/cancelled` and reject; a server that is down rejects at once, before
	 * `beforeSend`. `beforeSend` runs when the request is about to go out: inside the call's turn
	 * (takeTurn), what it records is that the call was sent, not that it was queued. `ask` answers
	 * the questions the server asks during the call (elicitation); while one waits, the call's
	 * timeout stands still (call-clock.ts). Without it they are answered `cancel`.
	 */
	async callTool(
		tool: string,
		args: Record<string, unknown>,
		options: {
			signal?: AbortSignal;
			timeoutMs: number;
			meta: Record<string, unknown>;
			beforeSend?: () => Promise<void>;
			ask?: CallAsker;
		}
	): Promise<CallToolResult> {
		this.refuseUnlessUp();
		await options.beforeSend?.();
		// The server may have gone while the call was recorded.
		const sdk = this.refuseUnlessUp();
		const send = async () => {
			const clock = new CallClock(options.timeoutMs);
			const ask = options.ask;
			const signal = options.signal ? AbortSignal.any([options.signal, clock.signal]) : clock.signal;
			try {
				return (await this.questions.within(ask && ((request, closed) => clock.paused(() => ask(request, closed))), () =>
					sdk.callTool({ name: tool, arguments: args, _meta: options.meta }, undefined, { signal, timeout: NEVER_MS })
				)) as CallToolResult;
			} finally {
				clock.stop();
			}
		};
		const oauth = this.oauth;
		if (!oauth) return send();
		try {
			const result = await send();
			oauth.answered();
			return result;
		} catch (e) {
			// A 401 or 403 is answered before the server runs anything, so the call is sent again once, with the refreshed token.
			if (!oauth.wasRefused()) throw e;
			const next = await oauth.afterRefusal(true);
			if (next === 'retry') return send();
			if (next !== 'sign-in') throw next;
			this.needsSignIn();
			throw new SignInRequired(this.name);
		}
	}

	/**
	 * The connected SDK client, for requests other than tool calls (prompts, resources). Throws
	 * SignInRequired or ToolServerDown, as a call would, when the server is not up; it does not start it.
	 */
	connected(): Client {
		return this.refuseUnlessUp();
	}

	/** Tells `listener` each time the server says its prompts or resources changed. */
	onListChanged(listener: (change: ListChange) => void): void {
		this.listChanged.add(listener);
	}

	private refuseUnlessUp(): Client {
		if (this.state === 'sign-in') throw new SignInRequired(this.name);
		if (this.state !== 'up' || !this.sdk) throw new ToolServerDown(`MCP server "${this.name}" is not connected`);
		return this.sdk;
	}

	/** After a sign-in: connects now, with the new tokens. */
	async signedIn(): Promise<void> {
		if (this.state === 'closed') return;
		if (this.state === 'up') this.drop();
		this.state = 'down';
		this.retryAt = 0;
		await this.currentTools();
	}

	/** After a sign-out, or a refresh that failed: disconnects, and waits for a sign-in. */
	needsSignIn(): void {
		if (this.state === 'closed') return;
		this.drop();
		this.state = 'sign-in';
		this.lastError = `MCP server "${this.name}" needs sign-in`;
		this.log(`MCP: server "${this.name}" needs sign-in`);
	}

	private drop(): void {
		const client = this.sdk;
		this.sdk = null;
		void client?.close().catch(() => {});
	}

	/**
	 * Runs `work` (a call and what its caller records of it) in its turn when it is a write and the
	 * server needs its writes to take turns (mcp.json `writeTurns`); at once otherwise. Concurrent runs
	 * share the child, and reads never wait.
	 */
	takeTurn<T>(write: boolean, work: () => Promise<T>): Promise<T> {
		return write && writesTakeTurns(this.config) ? this.writes.run(work) : work();
	}

	/** Called when a tool call found the connection gone; the next use starts the server again. */
	markDown(reason: string): void {
		if (this.state !== 'up') return;
		this.state = 'down';
		this.lastError = reason;
		this.log(`MCP: server "${this.name}" is down (${reason}); it will be restarted on its next use`);
		this.drop();
	}

	async close(): Promise<void> {
		this.state = 'closed';
		await this.starting?.catch(() => {});
		const client = this.sdk;
		this.sdk = null;
		await client?.close().catch(() => {});
	}

	/** `retried`: this start follows a refresh after a 401; a second refusal then means sign-in. */
	private async start(retried = false): Promise<void> {
		this.state = 'starting';
		if (this.everUp) this.restarts++;
		this.oauth?.clearRefusal();
		try {
			const { client: sdk, tools, annotations } = await openConnection(this.name, this.config, {
				elicit: this.questions.route,
				completed: this.questions.complete,
				authProvider: this.oauth?.connectionProvider(),
				fetch: this.oauth?.connectionFetch(),
				stderr: (line) => this.childLog(this.name, line)
			});
			if (this.isClosed()) {
				await sdk.close();
				return;
			}
			sdk.onclose = () => this.sdk === sdk && this.markDown('the connection closed');
			// Lists of prompts and resources are cached (mcp/prompts.ts, resources.ts) until the server says otherwise.
			const changed = (change: ListChange) => async () => this.listChanged.forEach((listener) => listener(change));
			sdk.setNotificationHandler(PromptListChangedNotificationSchema, changed('prompts'));
			sdk.setNotificationHandler(ResourceListChangedNotificationSchema, changed('resources'));
			this.sdk = sdk;
			this.tools = tools;
			this.annotations = annotations;
			this.state = 'up';
			this.everUp = true;
			this.failures = 0;
			this.retryAt = 0;
			this.log(`MCP: connected to "${this.name}" (${tools.length} tools)`);
		} catch (e) {
			let failure = e;
			if (this.oauth?.wasRefused() && !this.isClosed()) {
				// Refused for want of a token or of scope: a refreshed one connects at once, else a person signs in.
				const next = await this.oauth.afterRefusal(!retried);
				if (next === 'retry') return this.start(true);
				if (next === 'sign-in') return this.needsSignIn();
				failure = next;
			}
			this.failures++;
			this.lastError = failure instanceof Error ? failure.message : String(failure);
			this.retryAt = Date.now() + Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.failures - 1));
			if (!this.isClosed()) this.state = 'down';
			this.log(`MCP: server "${this.name}" failed to start: ${this.lastError}`);
		} finally {
			this.starting = null;
		}
	}

	/** Read through a method: `close()` may have run while `start()` awaited. */
	private isClosed(): boolean {
		return this.state === 'closed';
	}
}
