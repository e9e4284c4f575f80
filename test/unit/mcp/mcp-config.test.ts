import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMcpConfig } from '../../../src/lib/server/mcp/mcp-config';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function load(config: unknown, vars: Record<string, string | undefined> = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-mcp-config-'));
	const file = path.join(dir, 'mcp.json');
	fs.writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
	return loadMcpConfig(file, vars);
}

const stdio = { command: 'node', args: ['server.js'] };

describe('mcp.json', () => {
	it('loads the shipped config with only what the service sets itself: the fetch settings are optional', async () => {
		const own = { MEMORY_FILE_PATH: '/data/memory.jsonl', SOPHOS_PROTECTED_HOSTS: '127.0.0.1:3000,127.0.0.1:11434' };
		const config = await loadMcpConfig(path.join(ROOT, 'config/mcp.json'), own);
		expect(config.memory).toMatchObject({ env: { MEMORY_FILE_PATH: '/data/memory.jsonl' } });
		expect(config.fetch).toMatchObject({
			env: {
				FETCH_ALLOWED_HOSTS: '',
				FETCH_PROTECTED_HOSTS: '127.0.0.1:3000,127.0.0.1:11434',
				FETCH_IGNORE_ROBOTS: '',
				FETCH_TIMEOUT_MS: '',
				FETCH_MAX_BYTES: ''
			}
		});
		const set = await loadMcpConfig(path.join(ROOT, 'config/mcp.json'), { ...own, FETCH_TIMEOUT_MS: '500' });
		expect(set.fetch).toMatchObject({ env: { FETCH_TIMEOUT_MS: '500' } });
	});

	it('takes the flat map and the {"mcpServers": …} shape other clients write alike', async () => {
		const servers = { memory: stdio, remote: { type: 'http', url: 'https://mcp.example.com/mcp' } };
		expect(await load({ mcpServers: servers })).toEqual(await load(servers));
		expect(await load({ mcpServers: {} })).toEqual({});
	});

	it('reads type "streamable-http" as http, in type or transport', async () => {
		const config = await load({
			a: { type: 'streamable-http', url: 'https://a.example/mcp' },
			b: { transport: 'streamable-http', url: 'https://b.example/mcp' },
			c: { type: 'sse', url: 'https://c.example/sse' }
		});
		expect(config).toMatchObject({ a: { type: 'http' }, b: { transport: 'http' }, c: { type: 'sse' } });
	});

	it('leaves out a server marked disabled, whose variables then need not be set', async () => {
		const config = await load({
			on: { ...stdio, disabled: false },
			off: { ...stdio, disabled: true, env: { KEY: '${NOT_SET}' } },
			remote: { url: 'https://mcp.example.com/mcp', disabled: true }
		});
		expect(Object.keys(config)).toEqual(['on']);
	});

	it('expands ${VAR} and ${VAR:-default} in args, env and HTTP headers', async () => {
		const config = await load(
			{
				local: { command: 'node', args: ['--dir=${DIR}', '${MODE:-fast}', '$DIR', '${EMPTY:-was empty}'], env: { A: '${A}', B: 'x${B:-}y' } },
				remote: {
					url: 'https://mcp.example.com/mcp',
					headers: { Authorization: 'Bearer ${MCP_TOKEN}', 'X-Region': '${REGION:-eu:west}', 'X-Empty': '${EMPTY}' }
				}
			},
			{ DIR: '/srv', A: 'a', EMPTY: '', MCP_TOKEN: 's3cret', lower_case: 'x' }
		);
		expect(config.local).toMatchObject({ args: ['--dir=/srv', 'fast', '$DIR', 'was empty'], env: { A: 'a', B: 'xy' } });
		expect(config.remote).toMatchObject({ headers: { Authorization: 'Bearer s3cret', 'X-Region': 'eu:west', 'X-Empty': '' } });
	});

	it('fails naming every place that uses an unset variable without a default', async () => {
		const config = {
			memory: { command: 'node', args: ['${HOME_DIR}/x'], env: { KEY: '${API_KEY}' } },
			remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${MCP_TOKEN}' } }
		};
		await expect(load(config)).rejects.toThrow(
			'memory.args.0 uses ${HOME_DIR}, which is not set (write ${HOME_DIR:-} for an optional one); ' +
				'memory.env.KEY uses ${API_KEY}, which is not set (write ${API_KEY:-} for an optional one); ' +
				'remote.headers.Authorization uses ${MCP_TOKEN}, which is not set'
		);
		await expect(load(config)).rejects.toThrow(/^Invalid MCP configuration in .*mcp\.json: /);
	});

	it.each([
		['a typo in a server key', { memory: { command: 'node', argz: [] } }, /memory: Unrecognized key: "argz"|memory.*argz/],
		['an unknown top-level key beside mcpServers', { mcpServers: { memory: stdio }, globalShortcut: 'x' }, /Unrecognized key: "globalShortcut"/],
		['a typo inside mcpServers', { mcpServers: { memory: { ...stdio, evn: {} } } }, /mcpServers\.memory/],
		['mcpServers that is not an object', { mcpServers: [] }, /mcpServers/],
		['an unknown transport', { remote: { type: 'websocket', url: 'https://x.example' } }, /remote/],
		['a URL that is not http(s)', { remote: { url: 'file:///etc/passwd' } }, /remote/],
		['disabled that is not a boolean', { memory: { ...stdio, disabled: 'yes' } }, /memory/],
		['a server name with a dot', { 'my.server': stdio }, /server names may hold letters, digits, _ and -/],
		['an array', [stdio], /top level/],
		['null', null, /top level/]
	])('refuses %s, naming it', async (_, config, why) => {
		await expect(load(config)).rejects.toThrow(why);
	});

	it('refuses a file that is not JSON, naming it', async () => {
		await expect(load('{"memory": ')).rejects.toThrow(/^Failed to load MCP configuration from .*mcp\.json: /);
	});
});
