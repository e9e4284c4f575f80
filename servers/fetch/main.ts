// stdio entry point of the fetch MCP server. Settings are read before anything else so that a bad
// environment stops the process at once, with the variable named on stderr.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { registerFetchTool } from './fetch-tool.js';
import { parseSettings, SettingsError, type Settings } from './settings.js';

let settings: Settings;
try {
	settings = parseSettings(process.env);
} catch (error) {
	if (!(error instanceof SettingsError)) throw error;
	process.stderr.write(`sophos-fetch: ${error.message}\n`);
	process.exit(2);
}

const server = new McpServer({ name: 'sophos-fetch', version: '1.0.0' });
registerFetchTool(server, settings);
await server.connect(new StdioServerTransport());
