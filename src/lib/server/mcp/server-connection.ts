// One live connection to an MCP server, with its tools as LangChain tools and the SDK client that
// calls them. Remote servers go through the adapter's client (its transports, SSE fallback, OAuth
// provider); a stdio child is spawned here, so its stderr is ours to read from its first byte.

import { createInterface } from 'node:readline';
import type { PassThrough } from 'node:stream';
import { MultiServerMCPClient, loadMcpTools } from '@langchain/mcp-adapters';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { HttpServerConfig, McpServerConfig } from './mcp-config';
import { isStdio } from './mcp-config';
import type { ServerOAuth } from './oauth/server-oauth';

export type ServerConnection = {
	tools: StructuredToolInterface[];
	sdk: Client;
	close: () => Promise<void>;
};

/** Tool names as `server__tool`, the rest as the adapter's defaults, on either path. */
const TOOL_OPTIONS = { prefixToolNameWithServerName: true, throwOnLoadError: true, additionalToolNamePrefix: '', useStandardContentBlocks: false };

/**
 * Connects and lists the server's tools; a failure closes what it opened (a child is stopped) and
 * rethrows. `stderr`: each line a stdio child writes there, including while it fails to start.
 */
export async function connectServer(
	name: string,
	config: McpServerConfig,
	options: { oauth?: ServerOAuth; stderr: (line: string) => void }
): Promise<ServerConnection> {
	return isStdio(config) ? connectChild(name, config, options.stderr) : connectRemote(name, config, options.oauth);
}

async function connectChild(name: string, c: Exclude<McpServerConfig, HttpServerConfig>, stderr: (line: string) => void): Promise<ServerConnection> {
	const transport = new StdioClientTransport({
		command: c.command,
		args: c.args,
		cwd: c.cwd,
		// As the adapter spawns one: the configured variables with the parent's PATH to find the command.
		...(c.env ? { env: { PATH: process.env.PATH ?? '', ...c.env } } : {}),
		stderr: 'pipe'
	});
	// With `pipe`, the transport's stderr is a PassThrough made before the child is: no early line is missed.
	createInterface({ input: transport.stderr as PassThrough, crlfDelay: Infinity }).on('line', stderr);
	const sdk = new Client({ name: 'sophos', version: '1' });
	try {
		await sdk.connect(transport);
		return { tools: await loadMcpTools(name, sdk, TOOL_OPTIONS), sdk, close: () => sdk.close() };
	} catch (e) {
		await sdk.close().catch(() => {});
		throw e;
	}
}

async function connectRemote(name: string, c: HttpServerConfig, oauth: ServerOAuth | undefined): Promise<ServerConnection> {
	const client = new MultiServerMCPClient({
		mcpServers: {
			[name]: {
				transport: c.type ?? c.transport ?? ('http' as const),
				url: c.url,
				headers: c.headers,
				...(oauth ? { authProvider: oauth.connectionProvider() } : {})
			}
		},
		...TOOL_OPTIONS,
		onConnectionError: 'throw'
	});
	try {
		const tools = await client.getTools();
		const sdk = await client.getClient(name);
		if (!sdk) throw new Error('the MCP client did not connect');
		return { tools, sdk, close: () => client.close() };
	} catch (e) {
		await client.close().catch(() => {});
		throw e;
	}
}
