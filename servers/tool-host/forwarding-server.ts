// The MCP server one HTTP session talks to: it answers initialize itself and hands tools/list and
// tools/call to the shared child unchanged, so tool annotations reach every client as the child
// declared them and each call's `_meta` (Sophos's idempotencyKey) reaches the child. Prompts and
// resources are passed on too, when the child declares them.
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

/**
 * Declares prompts and resources as the child last declared them (with `listChanged`: the host
 * passes the child's on, and announces both when it restarts). A session opened before the child
 * was ever up offers its tools only, until the client connects again.
 */
export function createForwardingServer(child: ChildServer): Server {
	const declared = child.capabilities();
	const server = new Server(
		{ name: `sophos-tool-host/${child.name}`, version: '1.0.0' },
		{
			capabilities: {
				tools: {},
				...(declared?.prompts ? { prompts: { listChanged: true } } : {}),
				...(declared?.resources ? { resources: { listChanged: true } } : {})
			}
		}
	);
	server.setRequestHandler(ListToolsRequestSchema, (request, extra) => child.listTools(request.params, extra.signal));
	server.setRequestHandler(CallToolRequestSchema, (request, extra) => child.callTool(request.params, extra.signal));
	if (declared?.prompts) {
		server.setRequestHandler(ListPromptsRequestSchema, (request, extra) => child.request(request, ListPromptsResultSchema, extra.signal));
		server.setRequestHandler(GetPromptRequestSchema, (request, extra) => child.request(request, GetPromptResultSchema, extra.signal));
	}
	if (declared?.resources) {
		server.setRequestHandler(ListResourcesRequestSchema, (request, extra) => child.request(request, ListResourcesResultSchema, extra.signal));
		server.setRequestHandler(ListResourceTemplatesRequestSchema, (request, extra) =>
			child.request(request, ListResourceTemplatesResultSchema, extra.signal)
		);
		server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => child.request(request, ReadResourceResultSchema, extra.signal));
	}
	return server;
}
