// The MCP server one HTTP session talks to: it answers initialize itself and hands tools/list and
// tools/call to the shared child unchanged, so tool annotations reach every client as the child
// declared them and each call's `_meta` (Sophos's idempotencyKey) reaches the child. Prompts and
// resources likewise, when the child offers them, and their list_changed notifications go to every
// session.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
	CallToolRequestSchema,
	GetPromptRequestSchema,
	GetPromptResultSchema,
	ListPromptsRequestSchema,
	ListPromptsResultSchema,
	ListResourcesRequestSchema,
	ListResourcesResultSchema,
	ListResourceTemplatesRequestSchema,
	ListResourceTemplatesResultSchema,
	ListToolsRequestSchema,
	ReadResourceRequestSchema,
	ReadResourceResultSchema
} from '@modelcontextprotocol/sdk/types.js';
import type { ChildServer } from './child-server';

export function createForwardingServer(child: ChildServer, log: (line: string) => void): Server {
	const offers = child.offers();
	const server = new Server(
		{ name: `sophos-tool-host/${child.name}`, version: '1.0.0' },
		{
			capabilities: {
				tools: {},
				...(offers.prompts ? { prompts: { listChanged: true } } : {}),
				...(offers.resources ? { resources: { listChanged: true } } : {})
			}
		}
	);
	server.setRequestHandler(ListToolsRequestSchema, (request, extra) => child.listTools(request.params, extra.signal));
	server.setRequestHandler(CallToolRequestSchema, (request, extra) => child.callTool(request.params, extra.signal));
	if (offers.prompts) {
		server.setRequestHandler(ListPromptsRequestSchema, (request, extra) => child.request(request, ListPromptsResultSchema, extra.signal));
		server.setRequestHandler(GetPromptRequestSchema, (request, extra) => child.request(request, GetPromptResultSchema, extra.signal));
	}
	if (offers.resources) {
		server.setRequestHandler(ListResourcesRequestSchema, (request, extra) => child.request(request, ListResourcesResultSchema, extra.signal));
		server.setRequestHandler(ListResourceTemplatesRequestSchema, (request, extra) => child.request(request, ListResourceTemplatesResultSchema, extra.signal));
		server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => child.request(request, ReadResourceResultSchema, extra.signal));
	}
	const unsubscribe = child.onListChanged((kind) => {
		if (!offers[kind]) return;
		const sent = kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged();
		sent.catch((e: Error) => log(`telling a session of "${child.name}" its ${kind} changed failed: ${e.message}`));
	});
	server.onclose = unsubscribe;
	return server;
}
