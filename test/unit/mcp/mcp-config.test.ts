import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMcpConfig, signsInWithOAuth, writesTakeTurns } from '../../../src/lib/server/mcp/mcp-config';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function load(config: unknown, vars: Record<string, string | undefined> = {}, secrets?: ReadonlySet<string>) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-mcp-config-'));
	const file = path.join(dir, 'mcp.json');
	fs.writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
	return loadMcpConfig(file, vars, secrets);
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

	it('ships memory and fetch trusted, memory private; writes take turns on stdio servers unless told', async () => {
		const config = await loadMcpConfig(path.join(ROOT, 'config/mcp.json'), { MEMORY_FILE_PATH: '/m' });
		expect(config.memory).toMatchObject({ trusted: true, private: true });
		expect(config.fetch).toMatchObject({ trusted: true });
		const shared = await loadMcpConfig(path.join(ROOT, 'config/mcp.shared.json'), { TOOL_HOST_TOKEN: 't' });
		expect(shared.memory).toMatchObject({ trusted: true, private: true });
		expect(writesTakeTurns(config.memory!)).toBe(true);
		expect(writesTakeTurns(shared.memory!)).toBe(false);
		const told = await load({ local: { ...stdio, writeTurns: false }, remote: { url: 'https://x.example', writeTurns: true } });
		expect(writesTakeTurns(told.local!)).toBe(false);
		expect(writesTakeTurns(told.remote!)).toBe(true);
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
		['trusted that is not a boolean', { memory: { ...stdio, trusted: 'yes' } }, /memory/],
		['private per tool that is not a boolean', { memory: { ...stdio, private: { read_graph: 1 } } }, /memory/],
		['writeTurns that is not a boolean', { remote: { url: 'https://x.example', writeTurns: 'on' } }, /remote/],
		['a server name with a dot', { 'my.server': stdio }, /server names may hold letters, digits, _ and -/],
		// /api/mcp/prompts/… and /api/mcp/resources/… are the API's, not a server's sign-in paths.
		['a server named prompts', { prompts: stdio }, /server names "prompts" and "resources" are reserved/],
		['a server named resources', { mcpServers: { resources: stdio } }, /server names "prompts" and "resources" are reserved/],
		['an array', [stdio], /top level/],
		['null', null, /top level/]
	])('refuses %s, naming it', async (_, config, why) => {
		await expect(load(config)).rejects.toThrow(why);
	});

	describe("Sophos's own secrets (issue 21)", () => {
		const vars = { OPENAI_API_KEY: 'sk-1', SOPHOS_TOKEN: 'tok', DATABASE_URL: 'postgres://u:p@h/d', VLLM_KEY: 'vk', OTHER: 'o' };
		const secrets = new Set(['SOPHOS_TOKEN', 'OPENAI_API_KEY', 'DATABASE_URL', 'VLLM_KEY']);

		it.each([
			['env', { x: { ...stdio, env: { KEY: '${OPENAI_API_KEY}' } } }, 'x.env.KEY uses ${OPENAI_API_KEY}'],
			['env, inside a value', { x: { ...stdio, env: { DB: 'url=${DATABASE_URL}' } } }, 'x.env.DB uses ${DATABASE_URL}'],
			['headers', { x: { url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer ${SOPHOS_TOKEN}' } } }, 'x.headers.Authorization uses ${SOPHOS_TOKEN}'],
			['args', { x: { ...stdio, args: ['--key=${VLLM_KEY}'] } }, 'x.args.0 uses ${VLLM_KEY}'],
			['with a default', { x: { ...stdio, env: { KEY: '${OPENAI_API_KEY:-none}' } } }, 'x.env.KEY uses ${OPENAI_API_KEY}'],
			['allowed for another secret only', { x: { ...stdio, env: { KEY: '${OPENAI_API_KEY}' }, allowSecrets: ['VLLM_KEY'] } }, 'x.env.KEY uses ${OPENAI_API_KEY}'],
			['allowed on another server only', { x: { ...stdio, env: { KEY: '${OPENAI_API_KEY}' } }, y: { ...stdio, allowSecrets: ['OPENAI_API_KEY'] } }, 'x.env.KEY']
		])('refuses a secret expanded in %s unless allowSecrets names it, saying how', async (_, config, why) => {
			const refusal = load(config, vars, secrets);
			await expect(refusal).rejects.toThrow(why);
			await expect(load(config, vars, secrets)).rejects.toThrow(/one of Sophos's own secrets: list it in "x"\.allowSecrets/);
			await expect(load(config, vars, secrets)).rejects.not.toThrow(/sk-1|vk/);
		});

		it('expands a secret the entry allows, and other variables as before', async () => {
			const config = await load(
				{ x: { ...stdio, env: { KEY: '${OPENAI_API_KEY}', O: '${OTHER}' }, allowSecrets: ['OPENAI_API_KEY'] } },
				vars,
				secrets
			);
			expect(config.x).toMatchObject({ env: { KEY: 'sk-1', O: 'o' } });
		});

		it('guards SOPHOS_TOKEN, DATABASE_URL and OPENAI_API_KEY when no list is given', async () => {
			await expect(load({ x: { ...stdio, env: { T: '${SOPHOS_TOKEN}' } } }, vars)).rejects.toThrow('x.env.T uses ${SOPHOS_TOKEN}');
		});

		it('lets a disabled server name anything', async () => {
			expect(await load({ x: { ...stdio, env: { KEY: '${OPENAI_API_KEY}' }, disabled: true } }, vars, secrets)).toEqual({});
		});

		it('refuses an allowSecrets entry that is not a variable name', async () => {
			await expect(load({ x: { ...stdio, allowSecrets: ['${OPENAI_API_KEY}'] } }, vars, secrets)).rejects.toThrow(/x\.allowSecrets\.0: expected a variable name/);
		});
	});

	it('refuses a file that is not JSON, naming it', async () => {
		await expect(load('{"memory": ')).rejects.toThrow(/^Failed to load MCP configuration from .*mcp\.json: /);
	});

	describe('remote servers behind OAuth', () => {
		it('signs in with OAuth to a remote server unless its headers carry its own Authorization', async () => {
			const config = await load({
				open: { url: 'https://mcp.example/mcp' },
				bearer: { url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer x' } },
				local: stdio
			});
			expect(signsInWithOAuth(config.open!)).toBe(true);
			expect(signsInWithOAuth(config.bearer!)).toBe(false);
			expect(signsInWithOAuth(config.local!)).toBe(false);
		});

		it('takes a pre-registered client, its secret from a variable', async () => {
			const config = await load(
				{ docs: { url: 'https://mcp.example/mcp', oauth: { clientId: 'sophos', clientSecret: '${DOCS_SECRET}', scope: 'read' } } },
				{ DOCS_SECRET: 'the-secret' }
			);
			expect(config.docs).toMatchObject({ oauth: { clientId: 'sophos', clientSecret: 'the-secret', scope: 'read' } });
		});

		it('takes a client that signs in as itself (client_credentials), with the issuer its credentials go to', async () => {
			const oauth = { grant: 'client_credentials', clientId: 'sophos', clientSecret: '${DOCS_SECRET}', issuer: 'https://auth.example/' };
			const config = await load({ docs: { url: 'https://mcp.example/mcp', oauth } }, { DOCS_SECRET: 'the-secret' });
			expect(config.docs).toMatchObject({ oauth: { ...oauth, clientSecret: 'the-secret' } });
		});

		it('takes a client that signs its assertions with a private key, the key from a variable', async () => {
			const oauth = { grant: 'client_credentials', clientId: 'sophos', privateKey: '${DOCS_KEY}', signingAlgorithm: 'ES256', issuer: 'https://auth.example/' };
			const config = await load({ docs: { url: 'https://mcp.example/mcp', oauth } }, { DOCS_KEY: 'the-pem' });
			expect(config.docs).toMatchObject({ oauth: { ...oauth, privateKey: 'the-pem' } });
		});

		it.each([
			[{ oauth: { clientid: 'x' } }, 'docs.oauth: Unrecognized key: "clientid"'],
			[{ oauth: { clientSecret: 's' } }, 'docs.oauth.clientSecret: clientSecret needs a clientId'],
			[{ oauth: { clientId: '' } }, 'docs.oauth.clientId'],
			[{ oauth: { grant: 'password', clientId: 'x' } }, 'docs: Invalid input'],
			[{ oauth: { grant: 'client_credentials', clientId: 'x', issuer: 'https://auth.example/' } }, 'docs.oauth.grant: client_credentials needs a clientId, a clientSecret or a privateKey (not both), and the issuer'],
			[{ oauth: { grant: 'client_credentials', clientId: 'x', clientSecret: 's' } }, 'docs.oauth.grant: client_credentials needs a clientId, a clientSecret or a privateKey (not both), and the issuer'],
			[{ oauth: { grant: 'client_credentials', clientSecret: 's', issuer: 'https://auth.example/' } }, 'docs.oauth.clientSecret: clientSecret needs a clientId'],
			[{ oauth: { grant: 'client_credentials', clientId: 'x', clientSecret: 's', privateKey: 'k', signingAlgorithm: 'ES256', issuer: 'https://auth.example/' } }, 'docs.oauth.grant: client_credentials needs a clientId, a clientSecret or a privateKey (not both), and the issuer'],
			[{ oauth: { grant: 'client_credentials', clientId: 'x', privateKey: 'k', issuer: 'https://auth.example/' } }, 'docs.oauth.privateKey: privateKey and signingAlgorithm go together'],
			[{ oauth: { grant: 'client_credentials', clientId: 'x', privateKey: 'k', signingAlgorithm: 'none', issuer: 'https://auth.example/' } }, 'docs: Invalid input'],
			[{ oauth: { clientId: 'x', privateKey: 'k', signingAlgorithm: 'ES256' } }, 'docs.oauth.grant: issuer and privateKey are for grant "client_credentials"'],
			[{ oauth: { grant: 'client_credentials', clientId: 'x', clientSecret: 's', issuer: 'ftp://auth.example/' } }, 'docs.oauth.issuer'],
			[{ oauth: { clientId: 'x', issuer: 'https://auth.example/' } }, 'docs.oauth.grant: issuer and privateKey are for grant "client_credentials"']
		])('refuses a bad oauth entry %j, naming it', async (entry, why) => {
			await expect(load({ docs: { url: 'https://mcp.example/mcp', ...entry } })).rejects.toThrow(why);
		});

		it('refuses oauth on a stdio server', async () => {
			await expect(load({ local: { ...stdio, oauth: { clientId: 'x' } } })).rejects.toThrow('Invalid MCP configuration');
		});

		it('refuses a client secret that is one of Sophos\'s own secrets unless allowed', async () => {
			const secrets = new Set(['SOPHOS_TOKEN']);
			await expect(
				load({ docs: { url: 'https://mcp.example/mcp', oauth: { clientId: 'x', clientSecret: '${SOPHOS_TOKEN}' } } }, { SOPHOS_TOKEN: 't' }, secrets)
			).rejects.toThrow('docs.oauth.clientSecret uses ${SOPHOS_TOKEN}');
		});
	});
});
