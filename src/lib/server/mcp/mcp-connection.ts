import { loadMcpTools } from '@langchain/mcp-adapters';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createInterface } from 'node:readline';
import type { PassThrough } from 'node:stream';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema, type ElicitRequest, type ElicitResult, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { isStdio, type McpServerConfig } from './mcp-config';

/** A server's question during one of our calls (elicitation), and the signal that closes it. */
export type ElicitHandler = (request: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;

export type McpConnection = {
	client: Client;
	/** The LangChain tools offered to the model, named `server__tool`. */
	tools: StructuredToolInterface[];
	/** Each tool's annotations, by its own name. */
	annotations: Map<string, ToolAnnotations>;
};

/** How Sophos introduces itself to a server (`clientInfo`): package.json's name and version. */
const CLIENT_INFO = { name: 'sophos', version: '0.1.0' };

/**
 * Opens one MCP connection with an SDK Client of Sophos's own, so that it declares the client
 * capabilities Sophos has (elicitation, form and URL mode) and answers the server's questions
 * through `elicit`; its tools become LangChain tools as @langchain/mcp-adapters makes them. A
 * Streamable HTTP URL that answers 4xx (not 401) at connect is tried as a legacy SSE server, at the
 * same URL and at `/sse` for `/mcp`, as the adapter's own client did.
 */
export async function openConnection(
	name: string,
	config: McpServerConfig,
	options: {
		elicit: ElicitHandler;
		/** The server says a URL question's interaction has finished (`notifications/elicitation/complete`). */
		completed: (elicitationId: string) => void;
		authProvider?: OAuthClientProvider;
		/** What a remote server's transport fetches with (server-oauth.ts connectionFetch notes its scope challenges). */
		fetch?: FetchLike;
		stderr: (line: string) => void;
	}
): Promise<McpConnection> {
	const attempts = transportsFor(config, options, options.stderr);
	let first: unknown;
	for (const [i, make] of attempts.entries()) {
		const client = newClient(options.elicit, options.completed);
		try {
			await client.connect(make());
		} catch (e) {
			await client.close().catch(() => {});
			first ??= e;
			if (i === 0 && !fallsBackToSse(e)) throw e;
			continue;
		}
		try {
			const tools = await loadMcpTools(name, client, { prefixToolNameWithServerName: true, throwOnLoadError: true });
			const listed = await client.listTools();
			return { client, tools, annotations: new Map(listed.tools.map((t) => [t.name, t.annotations ?? {}])) };
		} catch (e) {
			await client.close().catch(() => {});
			throw e;
		}
	}
	throw first;
}

function newClient(elicit: ElicitHandler, completed: (elicitationId: string) => void): Client {
	const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: {}, url: {} } } });
	client.setRequestHandler(ElicitRequestSchema, (request, extra) => elicit(request.params, extra.signal));
	client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => completed(notification.params.elicitationId));
	return client;
}

/** A Streamable HTTP refusal that means the URL may be a legacy SSE server; a 401 is a sign-in matter. */
function fallsBackToSse(e: unknown): boolean {
	return e instanceof StreamableHTTPError && e.code !== undefined && e.code >= 400 && e.code < 500 && e.code !== 401;
}

function transportsFor(
	c: McpServerConfig,
	{ authProvider, fetch }: { authProvider?: OAuthClientProvider; fetch?: FetchLike },
	stderr: (line: string) => void
): (() => Transport)[] {
	if (isStdio(c)) {
		// Given an `env`, the child gets it and PATH; without, the SDK's own allow-list (mcp-child-env.test.ts).
		const env = c.env ? { PATH: process.env.PATH ?? '', ...c.env } : undefined;
		return [
			() => {
				const transport = new StdioClientTransport({ command: c.command, args: c.args, cwd: c.cwd, ...(env ? { env } : {}), stderr: 'pipe' });
				// With `pipe`, the transport's stderr is a PassThrough made before the child is: no early line is missed.
				createInterface({ input: transport.stderr as PassThrough, crlfDelay: Infinity }).on('line', stderr);
				return transport;
			}
		];
	}
	const url = new URL(c.url);
	const requestInit = c.headers ? { headers: c.headers } : undefined;
	const sse = (at: URL) => () =>
		new SSEClientTransport(at, {
			...(authProvider ? { authProvider } : {}),
			...(requestInit ? { requestInit, eventSourceInit: { fetch: withHeaders(c.headers!, authProvider) } } : {})
		});
	if ((c.type ?? c.transport) === 'sse') return [sse(url)];
	const legacy = new URL(url);
	legacy.pathname = legacy.pathname.replace(/\/mcp$/, '/sse');
	return [
		() => new StreamableHTTPClientTransport(url, { ...(authProvider ? { authProvider } : {}), ...(fetch ? { fetch } : {}), ...(requestInit ? { requestInit } : {}) }),
		sse(url),
		...(legacy.href !== url.href ? [sse(legacy)] : [])
	];
}

/** The SSE stream's GET carries the configured headers too (EventSource sends none of its own). */
function withHeaders(headers: Record<string, string>, authProvider: OAuthClientProvider | undefined) {
	return async (url: string | URL, init?: RequestInit) => {
		const sent = new Headers(init?.headers);
		const tokens = await authProvider?.tokens();
		if (tokens) sent.set('Authorization', `Bearer ${tokens.access_token}`);
		for (const [k, v] of Object.entries(headers)) sent.set(k, v);
		sent.set('Accept', 'text/event-stream');
		return fetch(url, { ...init, headers: sent });
	};
}
