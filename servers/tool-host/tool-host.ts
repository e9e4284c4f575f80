// The tool host: each configured stdio server started once, served at /mcp/<name> over MCP's
// Streamable HTTP transport with a session per client, every session sharing the one child; and
// GET /health with each child's state. Requests pass the gate (request-gate.ts) first.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ChildServer } from './child-server';
import { createForwardingServer } from './forwarding-server';
import type { HostConfig } from './host-config';
import { RequestDrain } from './request-drain';
import { refusalOf } from './request-gate';
import { SessionRegistry } from './session-registry';
import type { Settings } from './settings';

const ROUTE = /^\/mcp\/([A-Za-z0-9_-]+)\/?$/;
/** How long the error answers to calls cut off by a shutdown get to reach their clients. */
const ANSWER_FLUSH_MS = 1_000;

export class ToolHost {
	private readonly children: Map<string, ChildServer>;
	private readonly sessions: SessionRegistry;
	private readonly inFlight = new RequestDrain();
	private readonly http: http.Server;
	private state: 'new' | 'listening' | 'closing' | 'closed' = 'new';

	constructor(
		config: HostConfig,
		private readonly settings: Settings,
		private readonly log: (line: string) => void = (line) => console.log(`tool-host: ${line}`)
	) {
		this.sessions = new SessionRegistry(settings.sessionIdleMs, this.log);
		this.children = new Map(
			Object.entries(config).map(([name, c]) => [name, new ChildServer(name, c, settings.callTimeoutMs, this.log)])
		);
		this.http = http.createServer((req, res) => {
			this.handle(req, res).catch((e) => {
				this.log(`request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
				if (!res.headersSent) reply(res, 500, 'Internal error');
				else res.destroy();
			});
		});
	}

	/** Starts every child (each up or failed, failed ones retrying), then listens; the URL it serves. */
	async start(): Promise<string> {
		if (this.state !== 'new') throw new Error('the tool host was started already');
		this.state = 'listening';
		await Promise.all([...this.children.values()].map((c) => c.start()));
		await new Promise<void>((resolve, reject) => {
			this.http.once('error', reject);
			this.http.listen(this.settings.port, this.settings.host, () => resolve());
		});
		const { address, port } = this.http.address() as AddressInfo;
		const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
		this.log(`listening on ${url} (${[...this.children.keys()].map((n) => `/mcp/${n}`).join(', ')})`);
		return url;
	}

	/**
	 * Stops taking requests (new ones get 503), lets the calls in flight finish for up to
	 * TOOL_HOST_SHUTDOWN_GRACE_MS, then closes the children, which answers each call still running
	 * with the server-down error rather than leaving its client to wait for its own timeout; then
	 * ends every session and its open streams.
	 */
	async close(): Promise<void> {
		if (this.state === 'closing' || this.state === 'closed') return;
		this.state = 'closing';
		const stopped = new Promise<void>((resolve) => this.http.close(() => resolve()));
		if (!(await this.inFlight.drained(this.settings.shutdownGraceMs))) {
			this.log('calls still running after the grace period are answered with an error');
		}
		await Promise.all([...this.children.values()].map((c) => c.close()));
		await this.inFlight.drained(ANSWER_FLUSH_MS);
		await this.sessions.closeAll();
		this.http.closeAllConnections();
		await stopped;
		this.state = 'closed';
	}

	private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const refusal = refusalOf(req.headers, req.rawHeaders, this.settings);
		if (refusal) {
			const challenge: Record<string, string> = refusal.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
			return reply(res, refusal.status, refusal.message, challenge);
		}
		const pathname = new URL(req.url ?? '/', 'http://host').pathname;
		if (pathname === '/health') {
			if (req.method !== 'GET') return reply(res, 405, 'Method not allowed', { Allow: 'GET' });
			const servers = [...this.children.values()].map((c) => ({ ...c.status(), sessions: this.sessions.countFor(c.name) }));
			res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
			res.end(JSON.stringify({ ok: servers.every((s) => s.state === 'up'), servers }));
			return;
		}
		const name = ROUTE.exec(pathname)?.[1];
		const child = name === undefined ? undefined : this.children.get(name);
		if (!name || !child) return reply(res, 404, 'No such server');
		if (this.state !== 'listening') return reply(res, 503, 'The tool host is shutting down');

		const sessionId = req.headers['mcp-session-id'];
		if (typeof sessionId === 'string') {
			const session = this.sessions.get(sessionId);
			// 404 is what the MCP spec tells a client to answer with a new session.
			if (!session || session.child !== name) return reply(res, 404, 'Session not found');
			this.sessions.track(session, res);
			if (req.method === 'POST') this.inFlight.track(res);
			return session.transport.handleRequest(req, res);
		}
		if (req.method !== 'POST') return reply(res, 400, 'An Mcp-Session-Id header is required');
		await this.openSession(name, child, req, res);
	}

	/** A new session: the transport answers anything but an initialize request with 400, and is then dropped. */
	private async openSession(name: string, child: ChildServer, req: http.IncomingMessage, res: http.ServerResponse) {
		const server = createForwardingServer(child, this.log);
		const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
			sessionIdGenerator: randomUUID,
			maxRequestBodySize: this.settings.bodyLimitBytes,
			onsessioninitialized: (id) => this.sessions.add(id, { child: name, transport, server }),
			onsessionclosed: (id) => void this.sessions.delete(id)
		});
		await server.connect(transport);
		await transport.handleRequest(req, res);
		if (transport.sessionId === undefined) await server.close();
	}
}

/** A refusal as a JSON-RPC error without an id, the shape the SDK's transport answers with itself. */
function reply(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
	res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
