// Remote MCP servers behind OAuth for the sign-in tests, each a child process on loopback ports:
// the MCP SDK's own example server with its demo authorization server, and our fixture whose
// authorization server issues refresh tokens (oauth-mcp-server.ts). Plus the browser's part of a
// sign-in: following redirects, as a browser would, from Sophos to the authorization server and back.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ScriptedOllama } from './scripted-ollama';
import { callsScript } from './scripts';
import { freePort, ROOT, Service, tempDir } from './service';
import { followRun } from './sse';

export class OAuthServer {
	private output = '';
	private readonly exited: Promise<void>;

	private constructor(
		private readonly child: ChildProcess,
		/** The MCP endpoint, as mcp.json names it. */
		readonly url: string,
		/** The authorization server's origin. */
		readonly authUrl: string
	) {
		this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
	}

	/**
	 * `simpleStreamableHttp.js --oauth`: it names itself `localhost` in its metadata, so Sophos must
	 * too. With `oauth: false` it is open, for its prompts and resources.
	 */
	static async sdkExample({ oauth = true }: { oauth?: boolean } = {}): Promise<OAuthServer> {
		const [mcp, auth] = [await freePort(), await freePort()];
		const script = 'node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js';
		const child = spawn(process.execPath, [script, ...(oauth ? ['--oauth'] : [])], {
			cwd: ROOT,
			env: { PATH: process.env.PATH, MCP_PORT: String(mcp), MCP_AUTH_PORT: String(auth) },
			stdio: ['ignore', 'pipe', 'pipe']
		});
		return new OAuthServer(child, `http://localhost:${mcp}/mcp`, `http://localhost:${auth}`).listening(/MCP Streamable HTTP Server listening/);
	}

	/**
	 * The fixture; `firstTokenSeconds`: the lifetime of tokens a sign-in gets (refreshed ones get an
	 * hour); `machinePublicKey`: the PEM its client `signed-machine` signs assertions for.
	 */
	static async fixture(options: { firstTokenSeconds?: number; machinePublicKey?: string } = {}): Promise<OAuthServer> {
		const [mcp, auth] = [await freePort(), await freePort()];
		const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/oauth-mcp-server.ts'], {
			cwd: ROOT,
			env: {
				PATH: process.env.PATH,
				OAUTH_MCP_PORT: String(mcp),
				OAUTH_AUTH_PORT: String(auth),
				...(options.firstTokenSeconds ? { OAUTH_FIRST_TOKEN_SECONDS: String(options.firstTokenSeconds) } : {}),
				...(options.machinePublicKey ? { OAUTH_MACHINE_PUBLIC_KEY: options.machinePublicKey } : {})
			},
			stdio: ['ignore', 'pipe', 'pipe']
		});
		return new OAuthServer(child, `http://127.0.0.1:${mcp}/mcp`, `http://127.0.0.1:${auth}`).listening(/OAuth MCP fixture listening/);
	}

	private listening(pattern: RegExp): Promise<OAuthServer> {
		return new Promise((resolve, reject) => {
			const onData = (chunk: Buffer) => {
				this.output += chunk.toString();
				if (pattern.test(this.output)) resolve(this);
			};
			this.child.stdout!.on('data', onData);
			this.child.stderr!.on('data', onData);
			void this.exited.then(() => reject(new Error(`OAuth server exited before listening:\n${this.output}`)));
		});
	}

	/** The fixture's test controls (oauth-mcp-server.ts). */
	async admin<T = Record<string, number>>(pathname: string, method: 'GET' | 'POST' = 'POST'): Promise<T> {
		return (await fetch(this.authUrl + pathname, { method })).json();
	}

	async close(): Promise<void> {
		this.child.kill('SIGTERM');
		await this.exited;
	}
}

/** A config directory whose mcp.json holds `servers` (and the system prompt). */
export function oauthConfig(servers: Record<string, unknown>): string {
	const configDir = tempDir('sophos-config-');
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
	fs.copyFileSync(path.join(ROOT, 'config/system.md'), path.join(configDir, 'system.md'));
	return configDir;
}

export type Hop = { url: string; status: number; location: string | null };

/**
 * Follows redirects from `start` one by one, as a browser does, until an answer that is not a
 * redirect or a Location for which `stopAt` is true (which is then not requested). Every hop is kept.
 */
export async function followRedirects(start: string, stopAt: (url: string) => boolean = () => false): Promise<{ hops: Hop[]; last: Response | null; next: string | null }> {
	const hops: Hop[] = [];
	let url = start;
	for (let i = 0; i < 10; i++) {
		const res = await fetch(url, { redirect: 'manual' });
		const location = res.headers.get('location');
		hops.push({ url, status: res.status, location });
		if (res.status < 300 || res.status >= 400 || !location) return { hops, last: res, next: null };
		await res.body?.cancel();
		url = new URL(location, url).href;
		if (stopAt(url)) return { hops, last: null, next: url };
	}
	throw new Error(`more than 10 redirects from ${start}`);
}

/** Sends `message` as a new conversation, follows its run to the end, and answers its first tool message. */
export async function firstToolMessage(service: Service, message: string): Promise<{ role: string; status?: string; content: string }> {
	const { conversation } = await (await service.post('/api/chat', { message })).json();
	const events = await followRun(service.url, conversation);
	if (events.at(-1)?.event !== 'end') throw new Error(`the run of "${message}" ended with ${events.at(-1)?.event}`);
	const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
	return (detail.messages as { role: string; status?: string; content: string }[]).find((m) => m.role === 'tool')!;
}

/**
 * The fixture as mcp.json's server `remote` (trusted, its calls run without approval), a model that
 * calls `tool` once a turn, and the service; `close` stops all three.
 */
export async function startWithFixture(
	tool: string,
	fixture: Parameters<typeof OAuthServer.fixture>[0] = {}
): Promise<{ remote: OAuthServer; service: Service; close: () => Promise<void> }> {
	const remote = await OAuthServer.fixture(fixture);
	const ollama = await ScriptedOllama.start(callsScript([{ name: tool, arguments: {} }])).catch(async (e) => {
		await remote.close();
		throw e;
	});
	const configDir = oauthConfig({ remote: { url: remote.url, trusted: true, approval: 'auto' } });
	const close = async (service?: Service) => {
		await service?.stop();
		await ollama.close();
		await remote.close();
	};
	const service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { READINESS_CACHE_MS: '0' } }).catch(async (e) => {
		await close();
		throw e;
	});
	return { remote, service, close: () => close(service) };
}
