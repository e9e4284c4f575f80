import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { McpResource, McpResourceTemplate, ResourceContents, ResourceList } from '../../protocol';
import { McpRefused, type McpRefusal } from './mcp-refusal';
import { classifyMcpRequestError } from './mcp-request-error';
import { allPages, collectLists, ServerListCache } from './server-lists';
import type { ServerSupervisor } from './server-supervisor';

export type McpResourcesOptions = {
	/** Longest resource, all its text contents together (MCP_CONTENT_MAX_CHARS): past it, 413. */
	maxChars: number;
	/** Per request (MCP_TOOL_TIMEOUT_MS). */
	timeoutMs: number;
};

type ServerResources = { resources: Resource[]; templates: ResourceTemplate[] };

/**
 * Every server's resources and resource templates, and a text resource read whole. The lists are
 * cached per connection until the server sends `resources/list_changed`.
 */
export class McpResources {
	private readonly cache: ServerListCache<ServerResources>;

	constructor(
		private readonly servers: readonly ServerSupervisor[],
		private readonly options: McpResourcesOptions
	) {
		this.cache = new ServerListCache('resources', (client) => this.load(client));
		for (const server of servers) this.cache.watch(server);
	}

	async list(): Promise<ResourceList> {
		const { lists, unavailable } = await collectLists(this.servers, this.cache, (c) => c.resources !== undefined);
		return {
			servers: lists.map(({ server, list }) => ({ server, resources: list.resources.map(toResource), templates: list.templates.map(toTemplate) })),
			unavailable
		};
	}

	/**
	 * Reads `uri` from `serverName`: NOT_FOUND for a server that is not configured or a URI it does not
	 * have, MCP_CONTENT_NOT_TEXT (415) for binary contents, MCP_CONTENT_TOO_LARGE (413) past the cap.
	 */
	async read(serverName: string, uri: string): Promise<ResourceContents | McpRefusal> {
		const server = this.servers.find((s) => s.name === serverName);
		if (!server) return { refused: 'mcp-server-unknown', server: serverName };
		await server.currentTools();
		try {
			const answer = await server.connected().readResource({ uri }, { timeout: this.options.timeoutMs });
			const contents = answer.contents.map((c) => {
				if (!('text' in c) || typeof c.text !== 'string') {
					throw new McpRefused({ refused: 'resource-not-text', server: serverName, uri, ...(c.mimeType ? { mimeType: c.mimeType } : {}) });
				}
				return { uri: c.uri, ...(c.mimeType ? { mimeType: c.mimeType } : {}), text: c.text };
			});
			const length = contents.reduce((n, c) => n + c.text.length, 0);
			if (length > this.options.maxChars) {
				throw new McpRefused({ refused: 'resource-too-large', server: serverName, uri, length, maxChars: this.options.maxChars });
			}
			return { server: serverName, uri, contents };
		} catch (e) {
			return classifyMcpRequestError(e, server);
		}
	}

	private async load(client: Client): Promise<ServerResources> {
		const timeout = { timeout: this.options.timeoutMs };
		const [resources, templates] = await Promise.all([
			allPages(async (cursor) => {
				const page = await client.listResources(cursor ? { cursor } : {}, timeout);
				return { items: page.resources, nextCursor: page.nextCursor };
			}),
			allPages(async (cursor) => {
				const page = await client.listResourceTemplates(cursor ? { cursor } : {}, timeout);
				return { items: page.resourceTemplates, nextCursor: page.nextCursor };
			})
		]);
		return { resources, templates };
	}
}

const described = (r: { title?: string; description?: string; mimeType?: string }) => ({
	...(r.title ? { title: r.title } : {}),
	...(r.description ? { description: r.description } : {}),
	...(r.mimeType ? { mimeType: r.mimeType } : {})
});

function toResource(r: Resource): McpResource {
	return { uri: r.uri, name: r.name, ...described(r), ...(typeof r.size === 'number' ? { size: r.size } : {}) };
}

function toTemplate(t: ResourceTemplate): McpResourceTemplate {
	return { uriTemplate: t.uriTemplate, name: t.name, ...described(t) };
}
