import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { McpPrompt, PromptList, PromptMessages } from '../../protocol';
import { McpRefused, type McpRefusal } from './mcp-refusal';
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
	async get(name: string, args: Record<string, string>): Promise<PromptMessages | McpRefusal> {
		const candidates = this.servers.filter((s) => name.startsWith(`${s.name}__`));
		if (!candidates.length) return { refused: 'prompt-server-unknown', prompt: name };
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
				return classifyMcpRequestError(e, server);
			}
		}
		return { refused: 'prompt-unknown', server: candidates[0]!.name, prompt: name.slice(candidates[0]!.name.length + 2) };
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
			throw new McpRefused({ refused: 'prompt-too-large', prompt: name, length, maxChars: this.options.maxChars });
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
	if (unknown !== undefined) throw new McpRefused({ refused: 'prompt-argument-unknown', prompt: name, argument: unknown });
	const missing = declared.find((a) => a.required && !args[a.name]?.trim());
	if (missing) throw new McpRefused({ refused: 'prompt-argument-missing', prompt: name, argument: missing.name });
}
