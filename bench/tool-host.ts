import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, ROOT, tempDir } from '../test/support/service';
import { reportSummary } from './support/summary';

/**
 * What a memory tool call costs through the tool host (Streamable HTTP to the host, stdio to its
 * one child) beside the memory server as Sophos runs it alone (its own stdio child): sequential
 * read_graph calls on a graph of ENTITIES entities, and create_entities calls, p50 and p99 each;
 * then two clients calling at once through the host, which share its one child.
 * Run: npx tsx bench/tool-host.ts [calls] [entities]
 */
const CALLS = Number(process.argv[2] ?? 500);
const ENTITIES = Number(process.argv[3] ?? 100);
const TOKEN = 'bench-tool-host-token-0123456789';
const MEMORY = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

const dir = tempDir('sophos-bench-tool-host-');
const seed = (file: string) =>
	fs.writeFileSync(
		file,
		Array.from({ length: ENTITIES }, (_, i) =>
			JSON.stringify({ type: 'entity', name: `entity-${i}`, entityType: 'thing', observations: [`observation ${i}`] })
		).join('\n')
	);

async function direct(): Promise<Client> {
	const file = path.join(dir, 'direct.jsonl');
	seed(file);
	const client = new Client({ name: 'bench', version: '1.0.0' });
	await client.connect(new StdioClientTransport({ command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: file } }));
	return client;
}

async function startHost(): Promise<{ url: string; stop: () => Promise<void> }> {
	const file = path.join(dir, 'hosted.jsonl');
	seed(file);
	const port = await freePort();
	const child = spawn(process.execPath, ['build/servers/tool-host.mjs'], {
		cwd: ROOT,
		env: { PATH: process.env.PATH, TOOL_HOST_PORT: String(port), TOOL_HOST_TOKEN: TOKEN, MEMORY_FILE_PATH: file },
		stdio: ['ignore', 'pipe', 'inherit']
	});
	await new Promise<void>((resolve, reject) => {
		let output = '';
		child.stdout!.on('data', (c: Buffer) => (output += c.toString()) && output.includes('listening on') && resolve());
		child.once('exit', (code) => reject(new Error(`tool host exited (${code}):\n${output}`)));
	});
	const stop = () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM')));
	return { url: `http://127.0.0.1:${port}/mcp/memory`, stop };
}

async function viaHost(url: string): Promise<Client> {
	const client = new Client({ name: 'bench', version: '1.0.0' });
	const headers = { Authorization: `Bearer ${TOKEN}` };
	await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
	return client;
}

let created = 0;
const calls = {
	read_graph: (c: Client) => c.callTool({ name: 'read_graph', arguments: {} }),
	create_entities: (c: Client) =>
		c.callTool({ name: 'create_entities', arguments: { entities: [{ name: `new-${created++}`, entityType: 'thing', observations: ['x'] }] } })
};

async function timed(client: Client, call: (c: Client) => Promise<unknown>, n = CALLS): Promise<number[]> {
	for (let i = 0; i < 20; i++) await calls.read_graph(client); // warm-up
	const times: number[] = [];
	for (let i = 0; i < n; i++) {
		const started = performance.now();
		await call(client);
		times.push(performance.now() - started);
	}
	return times.sort((a, b) => a - b);
}
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2);
const both = (t: number[]) => `${pct(t, 50)} / ${pct(t, 99)} ms`;

const alone = await direct();
const directRead = await timed(alone, calls.read_graph);
const directCreate = await timed(alone, calls.create_entities);
await alone.close();

const host = await startHost();
const hosted = await viaHost(host.url);
const hostRead = await timed(hosted, calls.read_graph);
const hostCreate = await timed(hosted, calls.create_entities);
const second = await viaHost(host.url);
const started = performance.now();
const [first, other] = await Promise.all([timed(hosted, calls.read_graph), timed(second, calls.read_graph)]);
const wall = performance.now() - started;
await hosted.close();
await second.close();
await host.stop();
fs.rmSync(dir, { recursive: true, force: true });

const concurrent = [...first!, ...other!].sort((a, b) => a - b);
console.log(`\nMemory tool calls through the tool host beside a stdio child of one's own (${CALLS} sequential calls each, ${ENTITIES} entities)`);
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
console.log(`Reproduce: npx tsx bench/tool-host.ts ${CALLS} ${ENTITIES}\n`);
console.log('| call | through the tool host, p50 / p99 | own stdio child, p50 / p99 |\n| --- | --- | --- |');
console.log(`| read_graph | ${both(hostRead)} | ${both(directRead)} |`);
console.log(`| create_entities | ${both(hostCreate)} | ${both(directCreate)} |`);
console.log(`| read_graph, 2 clients at once | ${both(concurrent)} (${((2 * CALLS) / (wall / 1000)).toFixed(0)} calls/s) | – |`);
reportSummary('tool-host', [
	{ figure: `read_graph (${ENTITIES} entities), p50 / p99`, ours: both(hostRead), baseline: `${both(directRead)} own stdio child`, goal: '' },
	{ figure: 'create_entities, p50 / p99', ours: both(hostCreate), baseline: `${both(directCreate)} own stdio child`, goal: '' }
]);
