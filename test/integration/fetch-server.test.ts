// The built fetch MCP server (build/servers/fetch.mjs) as a real child process, spoken to over
// stdio by the SDK's client, against page servers on 127.0.0.1 that each test starts and stops.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync, spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const serverScript = `${root}build/servers/fetch.mjs`;

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

interface PageServer {
	port: number;
	origin: string;
	/** Every path requested, in order. */
	requests: string[];
}

const cleanups: Array<() => Promise<void>> = [];

beforeAll(() => {
	// Always rebuild: the test must exercise the current sources, and esbuild takes a fraction of a second.
	execFileSync(process.execPath, ['scripts/build-servers.mjs'], { cwd: root, stdio: 'inherit' });
});

afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startPages(routes: Record<string, Handler>): Promise<PageServer> {
	const requests: string[] = [];
	const server = http.createServer((request, response) => {
		requests.push(request.url ?? '');
		const handler = routes[request.url ?? ''];
		if (handler) return handler(request, response);
		response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	cleanups.push(async () => {
		// Held responses (the timeout tests) would keep close() waiting forever.
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	});
	const { port } = server.address() as AddressInfo;
	return { port, origin: `http://127.0.0.1:${port}`, requests };
}

async function startFetchServer(env: Record<string, string> = {}): Promise<Client> {
	// The transport passes on only a small default allow-list, so the settings go in explicitly.
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [serverScript],
		env: { PATH: process.env.PATH ?? '', ...env },
		stderr: 'inherit'
	});
	const client = new Client({ name: 'fetch-server-test', version: '1.0.0' });
	await client.connect(transport);
	cleanups.push(() => client.close());
	return client;
}

async function callFetch(client: Client, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
	const result = await client.callTool({ name: 'fetch', arguments: args });
	const content = result.content as Array<{ type: string; text: string }>;
	expect(content).toHaveLength(1);
	return { text: content[0]!.text, isError: result.isError === true };
}

function html(body: string, title = 'Test page'): Handler {
	return (_request, response) => {
		response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
		response.end(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);
	};
}

function redirect(location: string, status = 302): Handler {
	return (_request, response) => response.writeHead(status, { Location: location }).end();
}

const ARTICLE = `
	<nav><a href="/">Home</a> <a href="/about">About</a></nav>
	<article>
		<h1>Field notes</h1>
		<p>The first paragraph has <a href="/notes/next">a relative link</a> and <strong>bold words</strong>.
		${'It goes on about durable agents and local-first software for a while. '.repeat(8)}</p>
		<h2>Second section</h2>
		<p>${'More sentences, so that Readability sees an article worth keeping. '.repeat(8)}</p>
		<ul><li>first item</li><li>second item</li></ul>
		<script>window.secret = "script text must not appear";</script>
	</article>
	<footer>Footer text</footer>`;

describe('fetch MCP server (built, over stdio)', () => {
	it('lists the fetch tool with the official input schema and read-only hints', async () => {
		const client = await startFetchServer();
		const { tools } = await client.listTools();
		expect(tools.map((tool) => tool.name)).toEqual(['fetch']);
		const tool = tools[0]!;
		expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
		const properties = tool.inputSchema.properties as Record<string, { default?: unknown; type?: string }>;
		expect(Object.keys(properties).sort()).toEqual(['max_length', 'raw', 'start_index', 'url']);
		expect(properties.max_length).toMatchObject({ default: 5000 });
		expect(properties.start_index).toMatchObject({ default: 0 });
		expect(properties.raw).toMatchObject({ default: false, type: 'boolean' });
		expect(tool.inputSchema.required).toEqual(['url']);
	});

	it('turns an HTML page into Markdown of its main content, with one request plus robots.txt', async () => {
		const pages = await startPages({ '/article': html(ARTICLE, 'Field notes') });
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		const { text, isError } = await callFetch(client, { url: `${pages.origin}/article` });
		expect(isError).toBe(false);
		expect(text.startsWith(`Contents of ${pages.origin}/article:\n# Field notes\n`)).toBe(true);
		expect(text).toContain('## Second section');
		expect(text).toContain(`[a relative link](${pages.origin}/notes/next)`);
		expect(text).toContain('**bold words**');
		expect(text).toMatch(/^-\s+first item$/m);
		expect(text).not.toContain('script text must not appear');
		expect(pages.requests).toEqual(['/robots.txt', '/article']);
	});

	it('pages through long content: the cut note names the start_index that continues exactly', async () => {
		const pages = await startPages({ '/article': html(ARTICLE, 'Field notes') });
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		const prefix = `Contents of ${pages.origin}/article:\n`;
		const whole = await callFetch(client, { url: `${pages.origin}/article`, max_length: 999_999 });
		const full = whole.text.slice(prefix.length);
		expect(full).not.toContain('Content truncated');

		let joined = '';
		let start = 0;
		let calls = 1;
		for (;;) {
			const { text } = await callFetch(client, { url: `${pages.origin}/article`, max_length: 300, start_index: start });
			calls++;
			expect(text.startsWith(prefix)).toBe(true);
			const note = /\n\n<error>Content truncated\. Call the fetch tool with a start_index of (\d+) to get more content\.<\/error>$/.exec(text);
			if (!note) {
				joined += text.slice(prefix.length);
				break;
			}
			joined += text.slice(prefix.length, note.index);
			expect(Number(note[1])).toBe(start + 300);
			start = Number(note[1]);
		}
		expect(joined).toBe(full);
		expect(calls).toBeGreaterThan(3);

		const past = await callFetch(client, { url: `${pages.origin}/article`, start_index: full.length });
		expect(past.text).toBe(`${prefix}<error>No more content available.</error>`);
		expect(pages.requests).toHaveLength(2 * (calls + 1));
	});

	it('returns the HTML itself with raw=true', async () => {
		const pages = await startPages({ '/article': html(ARTICLE) });
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		const { text, isError } = await callFetch(client, { url: `${pages.origin}/article`, raw: true, max_length: 100_000 });
		expect(isError).toBe(false);
		expect(text).toContain(
			`Content type text/html; charset=utf-8 cannot be simplified to markdown, but here is the raw content:\nContents of ${pages.origin}/article:\n<!doctype html>`
		);
		expect(text).toContain('<script>window.secret');
	});

	it('returns plain text as it is, with the official wording', async () => {
		const body = 'line one\n# not a heading to convert\n  indented <b>tags stay</b>\n';
		const pages = await startPages({
			'/notes.txt': (_request, response) => response.writeHead(200, { 'Content-Type': 'text/plain' }).end(body)
		});
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		const { text, isError } = await callFetch(client, { url: `${pages.origin}/notes.txt` });
		expect(isError).toBe(false);
		expect(text).toBe(
			`Content type text/plain cannot be simplified to markdown, but here is the raw content:\nContents of ${pages.origin}/notes.txt:\n${body}`
		);
	});

	it('refuses binary content', async () => {
		const pages = await startPages({
			'/logo.png': (_request, response) =>
				response.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0])),
			'/blob': (_request, response) =>
				response.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(Buffer.alloc(64)),
			'/untyped': (_request, response) => response.end(Buffer.from([1, 2, 0, 3, 0, 0]))
		});
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		for (const [path, type] of [
			['/logo.png', 'Content-Type image/png'],
			['/blob', 'Content-Type application/octet-stream'],
			['/untyped', 'no Content-Type, binary bytes']
		] as const) {
			const { text, isError } = await callFetch(client, { url: `${pages.origin}${path}` });
			expect(isError).toBe(true);
			expect(text).toBe(
				`Refusing to return ${pages.origin}${path}: it is binary content (${type}); the fetch tool only returns HTML and text.`
			);
		}
	});

	it('reports an HTTP error status with the official wording', async () => {
		const pages = await startPages({});
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		const { text, isError } = await callFetch(client, { url: `${pages.origin}/missing` });
		expect(isError).toBe(true);
		expect(text).toBe(`Failed to fetch ${pages.origin}/missing - status code 404`);
	});

	it('follows up to 5 redirects and refuses a chain of 6', async () => {
		const routes: Record<string, Handler> = { '/hop/0': html('<p>Arrived at the end of the chain.</p>') };
		for (let hop = 1; hop <= 6; hop++) routes[`/hop/${hop}`] = redirect(`/hop/${hop - 1}`, hop % 2 ? 301 : 307);
		const pages = await startPages(routes);
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });

		const five = await callFetch(client, { url: `${pages.origin}/hop/5` });
		expect(five.isError).toBe(false);
		expect(five.text).toContain('Arrived at the end of the chain.');
		// robots.txt once per origin per call, then each hop once.
		expect(pages.requests).toEqual(['/robots.txt', '/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1', '/hop/0']);

		pages.requests.length = 0;
		const six = await callFetch(client, { url: `${pages.origin}/hop/6` });
		expect(six.isError).toBe(true);
		expect(six.text).toBe(`Failed to fetch ${pages.origin}/hop/6: more than 5 redirects.`);
		expect(pages.requests).not.toContain('/hop/0');
	});

	it('refuses a body over FETCH_MAX_BYTES, declared or streamed', async () => {
		const big = 'x'.repeat(5000);
		const pages = await startPages({
			'/declared': (_request, response) =>
				response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': big.length }).end(big),
			'/streamed': (_request, response) => {
				response.writeHead(200, { 'Content-Type': 'text/plain' });
				response.write(big.slice(0, 800));
				response.end(big.slice(800));
			}
		});
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}`, FETCH_MAX_BYTES: '1000' });
		const declared = await callFetch(client, { url: `${pages.origin}/declared` });
		expect(declared).toEqual({
			isError: true,
			text: `The response from ${pages.origin}/declared is larger than FETCH_MAX_BYTES (1000 bytes; it declares 5000 bytes), so it was refused.`
		});
		const streamed = await callFetch(client, { url: `${pages.origin}/streamed` });
		expect(streamed).toEqual({
			isError: true,
			text: `The response from ${pages.origin}/streamed is larger than FETCH_MAX_BYTES (1000 bytes; stopped reading at the limit), so it was refused.`
		});
	});

	it('gives up after FETCH_TIMEOUT_MS on a server that never answers, or never finishes the body', async () => {
		const pages = await startPages({
			'/silent': () => {
				// Hold the request: no headers, no body, until the test closes the server.
			},
			'/stalled': (_request, response) => {
				response.writeHead(200, { 'Content-Type': 'text/plain' });
				response.write('the start of a body that never ends');
			}
		});
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}`, FETCH_TIMEOUT_MS: '300' });
		for (const path of ['/silent', '/stalled']) {
			const { text, isError } = await callFetch(client, { url: `${pages.origin}${path}` });
			expect(isError).toBe(true);
			expect(text).toBe(`Failed to fetch ${pages.origin}${path}: timed out after 300 ms (FETCH_TIMEOUT_MS).`);
		}
	});

	it('obeys a robots.txt disallow, unless FETCH_IGNORE_ROBOTS=true', async () => {
		const pages = await startPages({
			'/robots.txt': (_request, response) =>
				response.writeHead(200, { 'Content-Type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n'),
			'/private/page': html('<p>Private but public.</p>')
		});
		const allowed = `127.0.0.1:${pages.port}`;
		const polite = await startFetchServer({ FETCH_ALLOWED_HOSTS: allowed });
		const blocked = await callFetch(polite, { url: `${pages.origin}/private/page` });
		expect(blocked.isError).toBe(true);
		expect(blocked.text).toContain(
			`Blocked by robots.txt: ${pages.origin}/robots.txt does not allow Sophos-Fetch/1.0 (Autonomous; +local agent) to fetch ${pages.origin}/private/page (rule: "Disallow: /private").`
		);
		expect(pages.requests).toEqual(['/robots.txt']);

		pages.requests.length = 0;
		const rude = await startFetchServer({ FETCH_ALLOWED_HOSTS: allowed, FETCH_IGNORE_ROBOTS: 'true' });
		const fetched = await callFetch(rude, { url: `${pages.origin}/private/page` });
		expect(fetched.isError).toBe(false);
		expect(fetched.text).toContain('Private but public.');
		expect(pages.requests).toEqual(['/private/page']);
	});

	it('treats a 403 on robots.txt as "no autonomous fetching", like the official server', async () => {
		const pages = await startPages({
			'/robots.txt': (_request, response) => response.writeHead(403).end(),
			'/page': html('<p>Never reached.</p>')
		});
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		const { text, isError } = await callFetch(client, { url: `${pages.origin}/page` });
		expect(isError).toBe(true);
		expect(text).toContain(
			`When fetching robots.txt (${pages.origin}/robots.txt), received status 403 so assuming that autonomous fetching is not allowed.`
		);
		expect(pages.requests).toEqual(['/robots.txt']);
	});

	it('refuses a loopback URL when the host is not allowed, and the page server sees nothing', async () => {
		const pages = await startPages({ '/': html('<p>Internal dashboard.</p>') });
		const client = await startFetchServer();
		const { text, isError } = await callFetch(client, { url: `${pages.origin}/` });
		expect(isError).toBe(true);
		expect(text).toBe(`Refusing to fetch ${pages.origin}/: 127.0.0.1 is a loopback address.`);
		expect(pages.requests).toEqual([]);
	});

	it('refuses a hostname that resolves to loopback, even when its IP and port are allowed', async () => {
		const pages = await startPages({ '/': html('<p>Internal dashboard.</p>') });
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		const { text, isError } = await callFetch(client, { url: `http://localhost:${pages.port}/` });
		expect(isError).toBe(true);
		expect(text).toMatch(
			new RegExp(`^Refusing to fetch http://localhost:${pages.port}/: localhost resolves to (127\\.0\\.0\\.1|::1), which is a loopback address\\.$`)
		);
		expect(pages.requests).toEqual([]);
	});

	it('refuses, at the hop, an allowed host redirecting to a loopback port that is not allowed', async () => {
		const internal = await startPages({ '/secret': html('<p>Secret.</p>') });
		const pages = await startPages({ '/go': redirect(`${internal.origin}/secret`) });
		const client = await startFetchServer({ FETCH_ALLOWED_HOSTS: `127.0.0.1:${pages.port}` });
		const { text, isError } = await callFetch(client, { url: `${pages.origin}/go` });
		expect(isError).toBe(true);
		expect(text).toBe(
			`While following redirects from ${pages.origin}/go: Refusing to fetch ${internal.origin}/secret: 127.0.0.1 is a loopback address.`
		);
		expect(pages.requests).toEqual(['/robots.txt', '/go']);
		expect(internal.requests).toEqual([]);
	});

	it('refuses non-http schemes, credentials and bad arguments as tool errors', async () => {
		const client = await startFetchServer();
		const scheme = await callFetch(client, { url: 'file:///etc/passwd' });
		expect(scheme).toEqual({
			isError: true,
			text: 'Refusing to fetch file:///etc/passwd: only http: and https: URLs can be fetched, not file:.'
		});
		const credentials = await callFetch(client, { url: 'http://user:hunter2@example.com/' });
		expect(credentials.isError).toBe(true);
		expect(credentials.text).toContain('URLs with credentials (user:password@host) are not allowed');
		expect(credentials.text).not.toContain('hunter2');
		const badLength = await callFetch(client, { url: 'http://example.com/', max_length: 0 });
		expect(badLength.isError).toBe(true);
		expect(badLength.text).toContain('max_length');
	});

	it('exits non-zero at start, naming the variable, when a setting is invalid', () => {
		for (const [name, value] of [
			['FETCH_TIMEOUT_MS', 'abc'],
			['FETCH_IGNORE_ROBOTS', 'maybe'],
			['FETCH_MAX_BYTES', '-5'],
			['FETCH_ALLOWED_HOSTS', 'example.com:http']
		] as const) {
			const run = spawnSync(process.execPath, [serverScript], {
				env: { PATH: process.env.PATH ?? '', [name]: value },
				input: '',
				encoding: 'utf8'
			});
			expect(run.status).not.toBe(0);
			expect(run.stderr).toContain(`Invalid ${name}:`);
		}
	});
});
