import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { McpPrompt, PromptList, PromptMessages } from '../../protocol';
import { ApiError } from '../errors';
import { classifyMcpRequestError } from './mcp-request-error';
import { allPages, collectLists, ServerListCache } from './server-lists';
import type { ServerSupervisor } from './server-supervisor';
import { textOfPart } from './content-text';

export type McpPromptsOptions = {
	/** Longest prompt's messages, all together (MCP_CONTENT_MAX_CHARS): past it, 413. */
	maxChars: number;
	/** Per request (MCP_TOOL_TIMEOUT_MS). */
	timeoutMs: number;
};

/**
 * Every server's prompts, named `server__prompt` as tools are, and a prompt's messages for its
 * arguments. The lists are cached per connection until the server sends `prompts/list_changed`.
 */
export class McpPrompts {
	private readonly cache: ServerListCache<Prompt[]>;

	constructor(
		private readonly servers: readonly ServerSupervisor[],
		private readonly options: McpPromptsOptions
	) {
		this.cache = new ServerListCache('prompts', (client) => this.load(client));
		for (const server of servers) this.cache.watch(server);
	}

	async list(): Promise<PromptList> {
		const { lists, unavailable } = await collectLists(this.servers, this.cache, (c) => c.prompts !== undefined);
		return { prompts: lists.flatMap(({ server, list }) => list.map((p) => toDto(server, p))), unavailable };
	}

	/**
	 * The messages of prompt `name` (`server__prompt`) for `args`. NOT_FOUND for a server or prompt
	 * that is not there, BAD_REQUEST for a required argument left out or one the prompt does not take,
	 * checked against the server's list before it is asked.
	 */
	async get(name: string, args: Record<string, string>): Promise<PromptMessages> {
		const candidates = this.servers.filter((s) => name.startsWith(`${s.name}__`));
		if (!candidates.length) throw new ApiError('NOT_FOUND', `No MCP server is named by the prompt "${name}"`);
		for (const server of candidates) {
			const prompt = name.slice(server.name.length + 2);
			await server.currentTools();
			try {
				const client = server.connected();
				const listed = client.getServerCapabilities()?.prompts ? await this.cache.get(server, client) : [];
				const found = listed.find((p) => p.name === prompt);
				if (!found) continue;
				checkArguments(name, found, args);
				const answer = await client.getPrompt({ name: prompt, arguments: args }, { timeout: this.options.timeoutMs });
				return this.toMessages(name, answer);
			} catch (e) {
				throw classifyMcpRequestError(e, server);
			}
		}
		throw new ApiError('NOT_FOUND', `MCP server "${candidates[0]!.name}" has no prompt "${name.slice(candidates[0]!.name.length + 2)}"`);
	}

	private async load(client: Client): Promise<Prompt[]> {
		return allPages(async (cursor) => {
			const page = await client.listPrompts(cursor ? { cursor } : {}, { timeout: this.options.timeoutMs });
			return { items: page.prompts, nextCursor: page.nextCursor };
		});
	}

	private toMessages(name: string, answer: GetPromptResult): PromptMessages {
		const messages = answer.messages.map((m) => ({ role: m.role, text: textOfPart(m.content) }));
		const length = messages.reduce((n, m) => n + m.text.length, 0);
		if (length > this.options.maxChars) {
			throw new ApiError('MCP_CONTENT_TOO_LARGE', `The prompt "${name}" gave ${length} characters, more than MCP_CONTENT_MAX_CHARS (${this.options.maxChars})`);
		}
		return { name, ...(answer.description ? { description: answer.description } : {}), messages };
	}
}

function toDto(server: string, p: Prompt): McpPrompt {
	return {
		name: `${server}__${p.name}`,
		server,
		prompt: p.name,
		...(p.title ? { title: p.title } : {}),
		...(p.description ? { description: p.description } : {}),
		arguments: (p.arguments ?? []).map((a) => ({
			name: a.name,
			...(a.description ? { description: a.description } : {}),
			...(a.required ? { required: true } : {})
		}))
	};
}

function checkArguments(name: string, prompt: Prompt, args: Record<string, string>): void {
	const declared = prompt.arguments ?? [];
	const unknown = Object.keys(args).find((key) => !declared.some((a) => a.name === key));
	if (unknown !== undefined) throw new ApiError('BAD_REQUEST', `The prompt "${name}" takes no argument "${unknown}"`);
	const missing = declared.find((a) => a.required && !args[a.name]?.trim());
	if (missing) throw new ApiError('BAD_REQUEST', `The prompt "${name}" needs the argument "${missing.name}"`);
}
