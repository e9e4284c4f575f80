// The MCP server one HTTP session talks to: it answers initialize itself and hands tools/list and
// tools/call to the shared child unchanged, so tool annotations reach every client as the child
// declared them and each call's `_meta` (Sophos's idempotencyKey) reaches the child.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ChildServer } from './child-server';

export function createForwardingServer(child: ChildServer): Server {
	const server = new Server({ name: `sophos-tool-host/${child.name}`, version: '1.0.0' }, { capabilities: { tools: {} } });
	server.setRequestHandler(ListToolsRequestSchema, (request, extra) => child.listTools(request.params, extra.signal));
	server.setRequestHandler(CallToolRequestSchema, (request, extra) => child.callTool(request.params, extra.signal));
	return server;
}
