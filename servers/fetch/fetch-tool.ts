// The `fetch` tool: the official mcp-server-fetch's interface and wording, with the SSRF guard,
// size cap and timeout of this server underneath.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { binaryRefusal, decodeText, kindFromBody, kindFromHeader } from './content-kind.js';
import { FetchError } from './errors.js';
import { guardedGet, type RequestOptions } from './guarded-request.js';
import { htmlToMarkdown } from './page-content.js';
import { paginate } from './pagination.js';
import { readBody } from './read-body.js';
import { robotsGate } from './robots.js';
import type { Settings } from './settings.js';
import { systemResolver, type Resolver } from './target-guard.js';
import { displayUrl, parseUrl } from './url-policy.js';

export const USER_AGENT = 'Sophos-Fetch/1.0 (Autonomous; +local agent)';

export const fetchInput = {
	url: z.string().min(1).describe('URL to fetch'),
	max_length: z.number().int().gt(0).lt(1_000_000).default(5000).describe('Maximum number of characters to return.'),
	start_index: z
		.number()
		.int()
		.min(0)
		.default(0)
		.describe(
			'On return output starting at this character index, useful if a previous fetch was truncated and more context is required.'
		),
	raw: z.boolean().default(false).describe('Get the actual HTML content of the requested page, without simplification.')
};

export interface FetchArgs {
	url: string;
	max_length: number;
	start_index: number;
	raw: boolean;
}

const DESCRIPTION = `Fetches a URL from the internet and optionally extracts its contents as markdown.

Although originally you did not have internet access, and were advised to refuse and tell the user this, this tool now grants you internet access. Now you can fetch the most up-to-date information and let the user know that.`;

export function registerFetchTool(server: McpServer, settings: Settings): void {
	server.registerTool(
		'fetch',
		{
			description: DESCRIPTION,
			inputSchema: fetchInput,
			annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true }
		},
		(args) => runFetch(args, settings, systemResolver)
	);
}

/** Every failure becomes an isError result: the model reads it and can tell the user. */
export async function runFetch(args: FetchArgs, settings: Settings, resolve: Resolver): Promise<CallToolResult> {
	try {
		return { content: [{ type: 'text', text: await fetchText(args, settings, resolve) }] };
	} catch (error) {
		const text =
			error instanceof FetchError ? error.message : `Failed to fetch ${args.url}: ${(error as Error).message}`;
		return { content: [{ type: 'text', text }], isError: true };
	}
}

async function fetchText(args: FetchArgs, settings: Settings, resolve: Resolver): Promise<string> {
	const url = parseUrl(args.url);
	const signal = AbortSignal.timeout(settings.timeoutMs);
	try {
		const { content, prefix } = await download(url, args.raw, settings, {
			allowedHosts: settings.allowedHosts,
			protectedHosts: settings.protectedHosts,
			resolve,
			userAgent: USER_AGENT,
			signal
		});
		return `${prefix}Contents of ${displayUrl(url)}:\n${paginate(content, args.start_index, args.max_length)}`;
	} catch (error) {
		if (!signal.aborted) throw error;
		throw new FetchError(
			`Failed to fetch ${displayUrl(url)}: timed out after ${settings.timeoutMs} ms (FETCH_TIMEOUT_MS).`
		);
	}
}

async function download(url: URL, raw: boolean, settings: Settings, options: RequestOptions) {
	const beforeRequest = settings.ignoreRobots ? undefined : robotsGate(options);
	const reply = await guardedGet(url, { ...options, beforeRequest });
	const { response } = reply;
	const status = response.statusCode ?? 0;
	if (status >= 400) {
		response.destroy();
		throw new FetchError(`Failed to fetch ${displayUrl(url)} - status code ${status}`);
	}
	const contentType = response.headers['content-type'] ?? '';
	const headerKind = kindFromHeader(contentType);
	if (headerKind === 'binary') {
		response.destroy();
		throw binaryRefusal(reply.url, contentType);
	}
	const { bytes } = await readBody(response, reply.url, { maxBytes: settings.maxBytes, oversize: 'error' });
	const text = decodeText(bytes, contentType, headerKind);
	const kind = kindFromBody(headerKind, text, bytes, reply.url, contentType);
	if (kind === 'html' && !raw) return { content: htmlToMarkdown(text, reply.url), prefix: '' };
	return {
		content: text,
		prefix: `Content type ${contentType || 'unknown'} cannot be simplified to markdown, but here is the raw content:\n`
	};
}
