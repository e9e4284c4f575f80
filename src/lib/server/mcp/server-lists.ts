import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { UnavailableServer } from '../../protocol';
import type { ListChange, ServerSupervisor } from './server-supervisor';
import { classifyMcpRequestError } from './mcp-request-error';
import { mcpRefusalMessage } from './mcp-refusal';

/**
 * One list per server (its prompts, or its resources), kept while its connection lasts and until
 * the server sends `list_changed`: a new connection (a restart) is a new client, so its list is
 * read again. A list that failed to load is not kept.
 */
export class ServerListCache<T> {
	private readonly entries = new Map<string, { client: Client; list: Promise<T> }>();

	constructor(
		private readonly change: ListChange,
		private readonly load: (client: Client) => Promise<T>
	) {}

	watch(server: ServerSupervisor): void {
		server.onListChanged((change) => change === this.change && this.entries.delete(server.name));
	}

	get(server: ServerSupervisor, client: Client): Promise<T> {
		const hit = this.entries.get(server.name);
		if (hit?.client === client) return hit.list;
		const list = this.load(client);
		this.entries.set(server.name, { client, list });
		list.catch(() => this.entries.get(server.name)?.list === list && this.entries.delete(server.name));
		return list;
	}
}

/**
 * Every server's list, starting servers that are due a restart (as the tools do): servers that do
 * not declare the capability are left out; those that cannot be asked now are named in `unavailable`.
 */
export async function collectLists<T>(
	servers: readonly ServerSupervisor[],
	cache: ServerListCache<T>,
	declares: (capabilities: ServerCapabilities) => boolean
): Promise<{ lists: { server: string; list: T }[]; unavailable: UnavailableServer[] }> {
	const lists: { server: string; list: T }[] = [];
	const unavailable: UnavailableServer[] = [];
	await Promise.all(
		servers.map(async (server) => {
			await server.currentTools();
			try {
				const client = server.connected();
				if (!declares(client.getServerCapabilities() ?? {})) return;
				lists.push({ server: server.name, list: await cache.get(server, client) });
			} catch (e) {
				unavailable.push({ server: server.name, message: mcpRefusalMessage(classifyMcpRequestError(e, server)) });
			}
		})
	);
	// In mcp.json's order, whichever answered first.
	const order = (name: string) => servers.findIndex((s) => s.name === name);
	lists.sort((a, b) => order(a.server) - order(b.server));
	unavailable.sort((a, b) => order(a.server) - order(b.server));
	return { lists, unavailable };
}

/** Most pages of one list read from a server: a server that pages forever is not followed. */
const MAX_PAGES = 20;

/** Reads every page of a paginated MCP list. */
export async function allPages<T>(read: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
	const items: T[] = [];
	let cursor: string | undefined;
	for (let page = 0; page < MAX_PAGES; page++) {
		const answer = await read(cursor);
		items.push(...answer.items);
		cursor = answer.nextCursor;
		if (!cursor) break;
	}
	return items;
}
