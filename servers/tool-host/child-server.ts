// One hosted stdio server: the single child process every session's calls go to, through one SDK
// client. A child that exits is started again after a backoff; meanwhile calls fail at once with an
// error that says the server is down, and the health report shows it.
//
// Calls of tools the child does not declare read-only (readOnlyHint) are made one at a time
// (write-turns.ts): one writing process is not enough for the memory server, which saves its
// whole graph on every change.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { AnySchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
	CallToolResultSchema,
	ErrorCode,
	ListToolsResultSchema,
	McpError,
	PromptListChangedNotificationSchema,
	ResourceListChangedNotificationSchema,
	type CallToolRequest,
	type CallToolResult,
	type ClientRequest,
	type ListToolsRequest,
	type ListToolsResult
} from '@modelcontextprotocol/sdk/types.js';
import { WriteTurns } from '../../src/lib/server/mcp/write-turns';
import type { HostedServer } from './host-config';

export type ChildState = 'starting' | 'up' | 'down' | 'closed';

export type ChildStatus = { name: string; state: ChildState; restarts: number; error?: string };

/** The lists besides tools a child offers, whose changes every session is told of. */
export type ListKind = 'prompts' | 'resources';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

export class ChildServer {
	private state: ChildState = 'down';
	private client: Client | null = null;
	private starting: Promise<void> | null = null;
	private retryTimer: NodeJS.Timeout | null = null;
	private failures = 0;
	private restarts = 0;
	private everUp = false;
	private lastError: string | undefined;
	private readOnly = new Set<string>();
	private readonly writes = new WriteTurns();
	private readonly listeners = new Set<(kind: ListKind) => void>();

	constructor(
		readonly name: string,
		private readonly config: HostedServer,
		private readonly callTimeoutMs: number,
		private readonly log: (line: string) => void
	) {}

	/** Starts the child; resolves once it is up or has failed (a retry is then scheduled), never rejects. */
	start(): Promise<void> {
		if (this.state !== 'down' || this.starting) throw new Error(`tool host: "${this.name}" is already ${this.state}`);
		this.starting = this.connect().finally(() => (this.starting = null));
		return this.starting;
	}

	status(): ChildStatus {
		return {
			name: this.name,
			state: this.state,
			restarts: this.restarts,
			...(this.state !== 'up' && this.lastError ? { error: this.lastError } : {})
		};
	}

	listTools(params: ListToolsRequest['params'], signal: AbortSignal): Promise<ListToolsResult> {
		return this.forward((c) => c.request({ method: 'tools/list', params }, ListToolsResultSchema, { signal }));
	}

	/** Which lists besides tools the child declared at its start (none while it is down): a session offers the same. */
	offers(): Record<ListKind, boolean> {
		const capabilities = this.state === 'up' ? this.client?.getServerCapabilities() : undefined;
		return { prompts: capabilities?.prompts !== undefined, resources: capabilities?.resources !== undefined };
	}

	/** A prompts or resources request, forwarded as it came; aborting `signal` cancels it in the child. */
	request<T extends AnySchema>(request: ClientRequest, resultSchema: T, signal: AbortSignal): Promise<SchemaOutput<T>> {
		return this.forward((c) => c.request(request, resultSchema, { signal, timeout: this.callTimeoutMs }));
	}

	/**
	 * Calls `listener` when the child says its prompts or resources changed, and after a restart
	 * (the new child's lists may differ; a session's client keeps its lists until told). Returns the unsubscribe.
	 */
	onListChanged(listener: (kind: ListKind) => void): () => void {
		this.listeners.add(listener);
		return () => void this.listeners.delete(listener);
	}

	/** Forwards the call as it came, `_meta` (the caller's idempotencyKey) included; aborting `signal` cancels it in the child. */
	callTool(params: CallToolRequest['params'], signal: AbortSignal): Promise<CallToolResult> {
		const call = (abort: AbortSignal) =>
			this.forward((c) => c.request({ method: 'tools/call', params }, CallToolResultSchema, { signal: abort, timeout: this.callTimeoutMs }));
		if (this.readOnly.has(params.name)) return call(signal);
		// Sophos records a call as sent when its request leaves for the host (issue 21), so a write the
		// host accepted is sent to the child even if its caller went away while it waited its turn; the
		// abort then reaches the child as a cancellation, as for a call already running.
		return this.writes.run(() => {
			const sent = new AbortController();
			const pass = () => sent.abort(signal.reason);
			const request = call(sent.signal);
			if (signal.aborted) pass();
			else signal.addEventListener('abort', pass, { once: true });
			return request.finally(() => signal.removeEventListener('abort', pass));
		});
	}

	async close(): Promise<void> {
		this.state = 'closed';
		if (this.retryTimer) clearTimeout(this.retryTimer);
		await this.starting;
		const client = this.client;
		this.client = null;
		await client?.close().catch(() => {});
	}

	private async forward<T>(request: (client: Client) => Promise<T>): Promise<T> {
		const client = this.client;
		if (this.state !== 'up' || !client) throw this.downError();
		try {
			return await request(client);
		} catch (e) {
			// The child's exit closes the connection under the call. Said as the child's failure, not
			// as ConnectionClosed, which would tell Sophos its connection to the host is gone.
			if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) throw this.downError();
			throw e;
		}
	}

	private downError(): McpError {
		if (this.isClosed()) return new McpError(ErrorCode.InternalError, `tool server "${this.name}" stopped: the tool host is shutting down`);
		const why = this.lastError ? ` (${this.lastError})` : '';
		return new McpError(ErrorCode.InternalError, `tool server "${this.name}" is down${why}; the tool host is restarting it`);
	}

	private async connect(): Promise<void> {
		this.state = 'starting';
		if (this.everUp) this.restarts++;
		const { command, args, env, cwd } = this.config;
		const client = new Client({ name: `sophos-tool-host/${this.name}`, version: '1.0.0' });
		try {
			await client.connect(new StdioClientTransport({ command, args, env, cwd, stderr: 'inherit' }));
			if (this.isClosed()) {
				await client.close();
				return;
			}
			const readOnly = await readOnlyTools(client);
			client.onclose = () => this.client === client && this.exited();
			client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.listChanged('prompts'));
			client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.listChanged('resources'));
			this.client = client;
			this.readOnly = readOnly;
			this.state = 'up';
			this.everUp = true;
			this.failures = 0;
			this.log(`server "${this.name}" is up`);
			if (this.restarts > 0) for (const kind of ['prompts', 'resources'] as const) this.listChanged(kind);
		} catch (e) {
			await client.close().catch(() => {});
			this.lastError = e instanceof Error ? e.message : String(e);
			this.log(`server "${this.name}" failed to start: ${this.lastError}`);
			if (!this.isClosed()) this.scheduleRestart();
		}
	}

	private listChanged(kind: ListKind): void {
		for (const listener of [...this.listeners]) listener(kind);
	}

	private exited(): void {
		this.client = null;
		this.lastError = 'the process exited';
		this.log(`server "${this.name}" exited; restarting it`);
		this.scheduleRestart();
	}

	/** Waits longer after each failure in a row, so a child that dies at start is not respawned in a loop. */
	private scheduleRestart(): void {
		this.state = 'down';
		const delay = this.failures === 0 ? 0 : Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.failures - 1));
		this.failures++;
		this.retryTimer = setTimeout(() => {
			this.retryTimer = null;
			if (!this.isClosed()) void this.start();
		}, delay);
	}

	/** Read through a method: `close()` may have run while `connect()` awaited. */
	private isClosed(): boolean {
		return this.state === 'closed';
	}
}

/** The names of the tools the child declares read-only, every page of its list. */
async function readOnlyTools(client: Client): Promise<Set<string>> {
	const names = new Set<string>();
	let cursor: string | undefined;
	do {
		const page = await client.listTools(cursor === undefined ? undefined : { cursor });
		for (const tool of page.tools) if (tool.annotations?.readOnlyHint === true) names.add(tool.name);
		cursor = page.nextCursor;
	} while (cursor !== undefined);
	return names;
}
