import type { StructuredToolInterface } from '@langchain/core/tools';
import type { McpConfig } from './mcp-config';
import { ServerSupervisor, type ServerStatus } from './server-supervisor';
import { guardTool } from './guarded-tool';
import { createToolFilter } from './tool-filter';

export type ToolboxOptions = {
	toolTimeoutMs: number;
	maxResultChars: number;
	allow?: string[];
	deny?: string[];
	log?: (line: string) => void;
};

/**
 * The agent's tools: every configured MCP server under its own supervisor. A server that is down
 * costs only its own tools; the agent runs with the ones that are up.
 */
export class Toolbox {
	private readonly servers: ServerSupervisor[];
	private readonly offered: (name: string) => boolean;
	private readonly guarded = new WeakMap<StructuredToolInterface, StructuredToolInterface>();

	constructor(
		config: McpConfig,
		private readonly options: ToolboxOptions
	) {
		this.servers = Object.entries(config).map(([name, c]) => new ServerSupervisor(name, c, options.log));
		this.offered = createToolFilter(options.allow, options.deny);
	}

	/** Starts every server; resolves when each is up or has failed, never rejects. */
	async start(): Promise<void> {
		await Promise.all(this.servers.map((s) => s.currentTools()));
	}

	async tools(): Promise<StructuredToolInterface[]> {
		const perServer = await Promise.all(
			this.servers.map(async (server) =>
				(await server.currentTools()).filter((t) => this.offered(t.name)).map((t) => this.guard(t, server))
			)
		);
		return perServer.flat();
	}

	status(): ServerStatus[] {
		return this.servers.map((s) => s.status());
	}

	async close(): Promise<void> {
		await Promise.all(this.servers.map((s) => s.close()));
	}

	private guard(t: StructuredToolInterface, server: ServerSupervisor): StructuredToolInterface {
		let wrapped = this.guarded.get(t);
		if (!wrapped) {
			wrapped = guardTool(t, {
				timeoutMs: this.options.toolTimeoutMs,
				maxResultChars: this.options.maxResultChars,
				onServerGone: (reason) => server.markDown(reason)
			});
			this.guarded.set(t, wrapped);
		}
		return wrapped;
	}
}
