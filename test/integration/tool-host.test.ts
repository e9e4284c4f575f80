// The shared tool host (build/servers/tool-host.mjs) as its own process, running the memory server
// and the misbehaving test server once each, reached over Streamable HTTP by two built Sophos
// services that each have their own data directory; the model is the scripted Ollama.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testMcpServerCommand } from '../support/mcp-test-server-command';
import type { Script } from '../support/model-script';
import { OtlpReceiver } from '../support/otlp-receiver';
import { rawRequest } from '../support/raw-http';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript, currentTurn } from '../support/scripts';
import { freePort, ROOT, Service, tempDir } from '../support/service';
import { followRun } from '../support/sse';
import { waitForLine } from '../support/test-config';

const TOKEN = 'tool-host-test-token-0123456789';

/** The tool host as its own process, on a port and files that survive its restart. */
class HostProcess {
	output = '';
	private readonly exited: Promise<number | null>;
	private readonly waiters: { pattern: RegExp; resolve: () => void }[] = [];

	private constructor(
		readonly child: ChildProcess,
		readonly url: string,
		readonly options: HostOptions
	) {
		this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
	}

	static async start(options: HostOptions): Promise<HostProcess> {
		const child = spawn(process.execPath, ['build/servers/tool-host.mjs'], {
			cwd: ROOT,
			env: {
				PATH: process.env.PATH,
				HOME: process.env.HOME,
				TOOL_HOST_PORT: String(options.port),
				TOOL_HOST_TOKEN: TOKEN,
				TOOL_HOST_CONFIG: options.config,
				MEMORY_FILE_PATH: options.memoryFile,
				TEST_MCP_LOG: options.log,
				...options.env
			},
			stdio: ['ignore', 'pipe', 'pipe']
		});
		const host = new HostProcess(child, `http://127.0.0.1:${options.port}`, options);
		child.stdout!.on('data', (c: Buffer) => host.append(c.toString()));
		child.stderr!.on('data', (c: Buffer) => host.append(c.toString()));
		await Promise.race([
			host.waitForOutput(/listening on/),
			host.exited.then((code) => Promise.reject(new Error(`tool host exited (${code}) before listening:\n${host.output}`)))
		]);
		return host;
	}

	waitForOutput(pattern: RegExp): Promise<void> {
		if (pattern.test(this.output)) return Promise.resolve();
		return new Promise((resolve) => this.waiters.push({ pattern, resolve }));
	}

	stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
		if (this.child.exitCode === null) this.child.kill(signal);
		return this.exited;
	}

	health(): Promise<{ ok: boolean; servers: { name: string; state: string; restarts: number; sessions: number; error?: string }[] }> {
		return fetch(`${this.url}/health`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then((r) => r.json());
	}

	private append(text: string): void {
		this.output += text;
		for (const w of [...this.waiters]) {
			if (!w.pattern.test(this.output)) continue;
			this.waiters.splice(this.waiters.indexOf(w), 1);
			w.resolve();
		}
	}
}

type HostOptions = { port: number; config: string; memoryFile: string; log: string; env?: Record<string, string> };

/** The shipped config/tool-host.json plus the test server (and any `extra` servers). */
async function startHost(env: Record<string, string> = {}, extra: Record<string, unknown> = {}): Promise<HostProcess> {
	const dir = tempDir('sophos-tool-host-');
	const shipped = JSON.parse(fs.readFileSync(path.join(ROOT, 'config/tool-host.json'), 'utf8'));
	const test = { ...testMcpServerCommand(), env: { TEST_MCP_LOG: '${TEST_MCP_LOG}' } };
	const config = path.join(dir, 'tool-host.json');
	fs.writeFileSync(config, JSON.stringify({ ...shipped, test, ...extra }));
	return HostProcess.start({ port: await freePort(), config, memoryFile: path.join(dir, 'memory.jsonl'), log: path.join(dir, 'calls.log'), env });
}

/** A config dir whose mcp.json is the shipped config/mcp.shared.json pointed at `host`, plus its test server. */
function sharedConfig(host: HostProcess): string {
	const configDir = tempDir('sophos-config-');
	const shared = fs.readFileSync(path.join(ROOT, 'config/mcp.shared.json'), 'utf8').replaceAll('http://127.0.0.1:3100', host.url);
	const test = { url: `${host.url}/mcp/test`, headers: { Authorization: 'Bearer ${TOOL_HOST_TOKEN}' }, approval: 'auto' };
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ ...JSON.parse(shared), test }));
	fs.copyFileSync(path.join(ROOT, 'config/system.md'), path.join(configDir, 'system.md'));
	return configDir;
}

/** Every process under `pid`, with its command line. */
function descendants(pid: number): { pid: number; args: string }[] {
	let out = '';
	try {
		out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' });
	} catch {
		return []; // ps exits 1 when there is none
	}
	return out
		.trim()
		.split('\n')
		.map((line) => /^\s*(\d+)\s+(.*)$/.exec(line)!)
		.flatMap(([, p, args]) => [{ pid: Number(p), args: args! }, ...descendants(Number(p))]);
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

const memoryServers = (pid: number) => descendants(pid).filter((p) => p.args.includes('server-memory'));

type ToolMessage = { role: string; name?: string; status?: string; content: string; toolCallId?: string };

async function toolMessages(service: Service, conversation: string): Promise<ToolMessage[]> {
	const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
	return (detail.messages as ToolMessage[]).filter((m) => m.role === 'tool');
}

async function runOnce(service: Service, message: string): Promise<{ conversation: string; tools: ToolMessage[] }> {
	const { conversation } = await (await service.post('/api/chat', { message })).json();
	expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
	return { conversation, tools: await toolMessages(service, conversation) };
}

const ADA = { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] };

describe('the shared tool host', () => {
	const cleanups: (() => Promise<unknown>)[] = [];
	afterEach(async () => {
		for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
	});

	async function setUp(hostEnv: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
		const host = await startHost(hostEnv, extra);
		cleanups.push(() => host.stop());
		const ollama = await ScriptedOllama.start(callsScript([]));
		cleanups.push(() => ollama.close());
		const configDir = sharedConfig(host);
		const start = async (env: Record<string, string> = {}) => {
			const service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { TOOL_HOST_TOKEN: TOKEN, ...env } });
			cleanups.push(() => service.stop());
			return service;
		};
		return { host, ollama, start };
	}

	async function connect(host: HostProcess, server: string) {
		const transport = new StreamableHTTPClientTransport(new URL(`${host.url}/mcp/${server}`), {
			requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } }
		});
		const client = new Client({ name: 'tool-host-test', version: '1.0.0' });
		await client.connect(transport);
		cleanups.push(() => client.close());
		return { client, sessionId: transport.sessionId! };
	}

	it('two instances share one memory: what A writes B reads, and only the host child writes the file', async () => {
		const { host, ollama, start } = await setUp();
		const [a, b] = [await start(), await start()];

		ollama.script = callsScript([{ name: 'memory__create_entities', arguments: ADA }]);
		const wrote = await runOnce(a, 'Remember Ada.');
		expect(wrote.tools).toMatchObject([{ name: 'memory__create_entities', status: 'success' }]);

		ollama.script = callsScript([{ name: 'memory__read_graph', arguments: {} }]);
		const read = await runOnce(b, 'What do you know?');
		expect(read.tools).toMatchObject([{ name: 'memory__read_graph', status: 'success' }]);
		expect(read.tools[0]!.content).toContain('wrote the first program');

		expect(fs.readFileSync(host.options.memoryFile, 'utf8')).toContain('"name":"Ada"');
		expect(fs.statSync(host.options.memoryFile).mode & 0o777).toBe(0o600);
		expect(memoryServers(host.child.pid!)).toHaveLength(1);
		for (const service of [a, b]) {
			expect(memoryServers(service.child.pid!)).toEqual([]);
			expect(fs.existsSync(path.join(service.options.dataDir, 'memory.jsonl'))).toBe(false);
		}
	});

	it("passes a call's idempotency key through to the child, and the child's tool annotations back; the call's span names its MCP session", async () => {
		const { host, ollama, start } = await setUp();
		const receiver = await OtlpReceiver.start();
		cleanups.push(() => receiver.close());
		const a = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
		ollama.script = callsScript([{ name: 'test__effect', arguments: { item: 'a' } }]);
		const { conversation, tools } = await runOnce(a, 'Save a.');
		expect(tools).toMatchObject([{ name: 'test__effect', status: 'success', content: 'saved a' }]);
		const effects = fs.readFileSync(host.options.log, 'utf8').split('\n').filter((l) => l.startsWith('effect '));
		expect(effects).toEqual([`effect ${conversation}:${tools[0]!.toolCallId} a`]);

		await receiver.until(() => receiver.spans.some((s) => s.name === 'execute_tool test__effect'));
		const span = receiver.spans.find((s) => s.name === 'execute_tool test__effect')!;
		expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'tcp', 'sophos.tool.outcome': 'success' });
		expect(span.attributes['mcp.session.id']).toMatch(/^\S+$/);

		const { client } = await connect(host, 'test');
		const listed = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.annotations]));
		expect(listed.effect).toEqual({ readOnlyHint: false, idempotentHint: false, destructiveHint: true });
		expect(listed.visit).toEqual({ readOnlyHint: true, openWorldHint: true });
	});

	it('writes from two sessions at once all land: the host makes one write at a time in its child', async () => {
		const { host } = await setUp();
		const clients = [(await connect(host, 'memory')).client, (await connect(host, 'memory')).client];
		const names = Array.from({ length: 40 }, (_, i) => `entity-${i}`);
		await Promise.all(
			names.map((name, i) =>
				clients[i % 2]!.callTool({ name: 'create_entities', arguments: { entities: [{ name, entityType: 'thing', observations: [] }] } })
			)
		);
		const graph = (await clients[0]!.callTool({ name: 'read_graph', arguments: {} })) as { structuredContent?: { entities: { name: string }[] } };
		expect(graph.structuredContent?.entities.map((e) => e.name).sort()).toEqual([...names].sort());
	});

	it('refuses a missing or wrong token (401), a hostile Host or a browser Origin (403) and an oversized body (413), and nothing changes', async () => {
		const { host } = await setUp({ TOOL_HOST_BODY_LIMIT: '4096' });
		const { client, sessionId } = await connect(host, 'memory');
		await client.callTool({ name: 'create_entities', arguments: ADA });
		const before = fs.readFileSync(host.options.memoryFile, 'utf8');

		const call = (entities: unknown, pad = 0) =>
			JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'create_entities', arguments: { entities }, pad: 'x'.repeat(pad) } });
		const mallory = [{ name: 'Mallory', entityType: 'person', observations: ['should never be saved'] }];
		const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sessionId };
		const good = { ...headers, Authorization: `Bearer ${TOKEN}` };
		const send = (h: Record<string, string>, body = call(mallory)) => rawRequest(`${host.url}/mcp/memory`, { method: 'POST', headers: h, body });

		const missing = await send(headers);
		expect(missing.status).toBe(401);
		expect(missing.headers['www-authenticate']).toBe('Bearer');
		expect((await send({ ...headers, Authorization: `Bearer ${TOKEN.slice(0, -1)}x` })).status).toBe(401);
		expect((await send({ ...good, Host: `attacker.example:${host.options.port}` })).status).toBe(403);
		expect((await send({ ...good, Origin: 'http://attacker.example' })).status).toBe(403);
		// Issue 21: a hostile Host behind a loopback one is not passed over.
		const twoHosts = ['Host', `127.0.0.1:${host.options.port}`, 'Host', 'attacker.example', ...Object.entries(good).flat()];
		const duplicate = await rawRequest(`${host.url}/mcp/memory`, { method: 'POST', headers: twoHosts, body: call(mallory) });
		expect([duplicate.status, duplicate.body]).toEqual([403, expect.stringContaining('More than one Host header')]);
		expect((await send(good, call(mallory, 5000))).status).toBe(413);
		expect((await send({ ...good, 'Transfer-Encoding': 'chunked' }, call(mallory, 5000))).status).toBe(413);
		// Without a token, not even the list of servers' states is given.
		expect((await rawRequest(`${host.url}/health`)).status).toBe(401);

		expect(fs.readFileSync(host.options.memoryFile, 'utf8')).toBe(before);
		const graph = await client.callTool({ name: 'read_graph', arguments: {} });
		expect(JSON.stringify(graph)).not.toContain('Mallory');
		// The same request with the token is the one that would have written.
		const accepted = await send(good);
		expect(accepted.status).toBe(200);
		expect(fs.readFileSync(host.options.memoryFile, 'utf8')).toContain('Mallory');
	});

	it('a host restarted mid-run gives the tool-server error once, then Sophos opens a new session and goes on', async () => {
		const { ollama, start, ...rest } = await setUp();
		let host = rest.host;
		const a = await start();
		const script: Script = (request) => {
			const step = currentTurn(request).after.filter((m) => m.role === 'assistant').length;
			const read = { name: 'memory__read_graph', arguments: {} };
			if (step === 0) return { toolCalls: [{ name: 'memory__create_entities', arguments: ADA }] };
			if (step === 1) return { content: 'Looking again.', hold: 'restart', holdAfterChunks: 1, toolCalls: [read] };
			if (step === 2) return { toolCalls: [read] };
			return { content: 'Finished.' };
		};
		ollama.script = script;
		const { conversation } = await (await a.post('/api/chat', { message: 'Remember Ada, then look.' })).json();
		await ollama.held('restart');

		const [child] = memoryServers(host.child.pid!);
		expect(await host.stop('SIGTERM')).toBe(0);
		expect(isRunning(child!.pid)).toBe(false);
		host = await HostProcess.start(host.options);
		cleanups.push(() => host.stop());
		ollama.release('restart');

		expect((await followRun(a.url, conversation)).at(-1)?.event).toBe('end');
		const [created, failed, reread] = await toolMessages(a, conversation);
		expect(created).toMatchObject({ name: 'memory__create_entities', status: 'success' });
		expect(failed).toMatchObject({ name: 'memory__read_graph', status: 'error' });
		expect(failed!.content).toMatch(/^The tool server for memory__read_graph is not running \(.*Session not found.*\); it will be restarted on its next use\.$/);
		expect(reread).toMatchObject({ name: 'memory__read_graph', status: 'success' });
		expect(reread!.content).toContain('wrote the first program');
	});

	it('SIGTERM lets calls finish for the grace period, then answers one still running with an error, not silence', async () => {
		const { host, ollama, start } = await setUp({ TOOL_HOST_SHUTDOWN_GRACE_MS: '300' });
		const a = await start();
		ollama.script = callsScript([{ name: 'test__hang', arguments: {} }]);
		const { conversation } = await (await a.post('/api/chat', { message: 'Hang.' })).json();
		await waitForLine(host.options.log, /^hang started/);
		expect(await host.stop('SIGTERM')).toBe(0);
		expect(host.output).toContain('calls still running after the grace period are answered with an error');

		expect((await followRun(a.url, conversation)).at(-1)?.event).toBe('end');
		const [hang] = await toolMessages(a, conversation);
		// Without the answer, the call would wait for MCP_TOOL_TIMEOUT_MS (a minute) and time out.
		expect(hang).toMatchObject({ name: 'test__hang', status: 'error' });
		expect(hang!.content).toContain('tool server \"test\" stopped: the tool host is shutting down');
	});

	it("closes a killed instance's abandoned sessions, and keeps a live idle one whose stream is open", async () => {
		const { host, ollama, start } = await setUp({ TOOL_HOST_SESSION_IDLE_MS: '1000' });
		const [a, b] = [await start(), await start()];
		expect((await host.health()).servers.find((s) => s.name === 'memory')?.sessions).toBe(2);

		await a.kill();
		await host.waitForOutput(/closed abandoned session \S+ of "memory"/);
		// B's session is as old as A's and has had no request since; its open GET stream kept it.
		expect((await host.health()).servers.find((s) => s.name === 'memory')?.sessions).toBe(1);
		ollama.script = callsScript([{ name: 'memory__read_graph', arguments: {} }]);
		const read = await runOnce(b, 'What do you know?');
		expect(read.tools).toMatchObject([{ name: 'memory__read_graph', status: 'success' }]);
		expect(b.output).not.toMatch(/server "memory" is down/);
	});

	it.each([
		['off loopback without a token', { TOOL_HOST_HOST: '0.0.0.0', MEMORY_FILE_PATH: '/tmp/m.jsonl' }, 'TOOL_HOST_TOKEN is required when TOOL_HOST_HOST="0.0.0.0" is not a loopback address'],
		["Sophos's mcp.json as its config", { TOOL_HOST_CONFIG: 'config/mcp.json', MEMORY_FILE_PATH: '/tmp/m.jsonl' }, 'memory: Unrecognized keys: "trusted", "private", "approval"'],
		['no MEMORY_FILE_PATH for the shipped config', {}, 'memory.env.MEMORY_FILE_PATH uses ${MEMORY_FILE_PATH}, which is not set']
	])('refuses to start %s, saying why', (_name, env, message) => {
		const started = spawnSync(process.execPath, ['build/servers/tool-host.mjs'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
		expect(started.status).toBe(2);
		expect(started.stderr).toContain(message);
	});

	it('serves the child’s prompts and resources: Sophos lists, gets, reads and attaches them through the host', async () => {
		const { ollama, start } = await setUp();
		const a = await start();
		const get = async (p: string) => (await a.fetch(p)).json();

		const { prompts, unavailable } = await get('/api/mcp/prompts');
		expect(unavailable).toEqual([]);
		expect(prompts.map((p: { name: string }) => p.name)).toEqual(['test__review', 'test__hello', 'test__huge']);
		const got = await a.post('/api/mcp/prompts/test__review', { arguments: { topic: 'the plan' } });
		expect((await got.json()).messages[0]).toEqual({ role: 'user', text: 'Please review the plan.' });

		const resources = await get('/api/mcp/resources');
		expect(resources.unavailable).toEqual([]);
		expect(resources.servers.map((s: { server: string }) => s.server)).toEqual(['memory', 'test']);
		const ours = resources.servers[1];
		expect(ours.resources.map((r: { uri: string }) => r.uri)).toContain('test://notes/welcome');
		expect(ours.templates.map((t: { uriTemplate: string }) => t.uriTemplate)).toEqual(['test://notes/{name}', 'test://sized/{size}']);
		const read = await get(`/api/mcp/resources/read?server=test&uri=${encodeURIComponent('test://notes/welcome')}`);
		expect(read.contents).toEqual([{ uri: 'test://notes/welcome', mimeType: 'text/plain', text: 'Welcome to the test notes.' }]);
		const missing = await a.fetch(`/api/mcp/resources/read?server=test&uri=${encodeURIComponent('test://notes/nosuch')}`);
		expect(missing.status).toBe(404);

		ollama.script = callsScript([]);
		const { conversation } = await (await a.post('/api/chat', { message: 'Summarize this', attachments: [{ server: 'test', uri: 'test://notes/welcome' }] })).json();
		expect((await followRun(a.url, conversation)).at(-1)?.event).toBe('end');
		const sent = ollama.requests.at(-1)!.messages.filter((m) => m.role === 'user').map((m) => m.content);
		expect(sent).toEqual(['Summarize this\n\n<resource server="test" uri="test://notes/welcome">\nWelcome to the test notes.\n</resource>']);
	});

	it('passes the child’s list_changed to a session other than the one that caused it, and announces both lists when the child restarts', async () => {
		const { host } = await setUp();
		const [a, b] = [(await connect(host, 'test')).client, (await connect(host, 'test')).client];
		const heard = (client: Client) => {
			const changes: string[] = [];
			const waiters: { count: number; resolve: () => void }[] = [];
			const note = (method: string) => {
				changes.push(method);
				for (const w of waiters.filter((w) => changes.length >= w.count)) w.resolve();
			};
			client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => note(n.method));
			client.setNotificationHandler(PromptListChangedNotificationSchema, (n) => note(n.method));
			return { changes, until: (count: number) => new Promise<void>((resolve) => (changes.length >= count ? resolve() : waiters.push({ count, resolve }))) };
		};
		const onB = heard(b);
		await a.callTool({ name: 'add_note', arguments: { name: 'later', text: 'The later note.' } });
		expect((await b.listResources()).resources.map((r) => r.uri)).toContain('test://notes/later');
		await a.callTool({ name: 'announce_changes', arguments: {} });
		await onB.until(2);
		expect([...onB.changes].sort()).toEqual(['notifications/prompts/list_changed', 'notifications/resources/list_changed']);

		const child = descendants(host.child.pid!).find((p) => p.args.includes('mcp-test-server'));
		process.kill(child!.pid, 'SIGKILL');
		await onB.until(4);
		expect(onB.changes.slice(2).sort()).toEqual(['notifications/prompts/list_changed', 'notifications/resources/list_changed']);
		// The new child's notes are its own: the one added to the old child is gone.
		expect((await b.listResources()).resources.map((r) => r.uri)).not.toContain('test://notes/later');
	});

	it('restarts a child that dies, and reports one that cannot start as down', async () => {
		const broken = { command: 'node', args: ['-e', 'process.exit(3)'] };
		const { host } = await setUp({}, { broken });
		const { client } = await connect(host, 'memory');
		await client.callTool({ name: 'create_entities', arguments: ADA });

		const [child] = memoryServers(host.child.pid!);
		process.kill(child!.pid, 'SIGKILL');
		await host.waitForOutput(/server "memory" exited; restarting it\n[\s\S]*server "memory" is up/);
		const graph = await client.callTool({ name: 'read_graph', arguments: {} });
		expect(JSON.stringify(graph)).toContain('wrote the first program');

		const health = await host.health();
		expect(health.ok).toBe(false);
		expect(health.servers.find((s) => s.name === 'memory')).toEqual({ name: 'memory', state: 'up', restarts: 1, sessions: 1 });
		expect(health.servers.find((s) => s.name === 'broken')?.state).not.toBe('up');
		const { client: brokenClient } = await connect(host, 'broken');
		await expect(brokenClient.listTools()).rejects.toThrow(/tool server "broken" is down \(.*\); the tool host is restarting it/);
	});
});
