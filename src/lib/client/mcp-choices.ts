/**
 * Pure. What the composer offers from MCP servers: prompts as `/` commands, filled in from their
 * user messages, and resources to attach to the next message.
 */
import type { Attachment, McpPrompt, PromptMessages, ResourceList } from '../protocol';

/** The `/` command typed so far: the word after a leading `/` while the box holds nothing else; null otherwise. */
export function slashQuery(text: string): string | null {
	const typed = /^\/(\S*)$/.exec(text);
	return typed ? typed[1]! : null;
}

/** The prompts whose name or title holds `query`, in the listed order. */
export function matchingPrompts(prompts: readonly McpPrompt[], query: string): McpPrompt[] {
	const q = query.toLowerCase();
	return prompts.filter((p) => p.name.toLowerCase().includes(q) || (p.title?.toLowerCase().includes(q) ?? false));
}

/** The required arguments left blank in `values`. */
export function missingArguments(prompt: McpPrompt, values: Record<string, string>): string[] {
	return prompt.arguments.filter((a) => a.required && !values[a.name]?.trim()).map((a) => a.name);
}

/** The arguments to send: the ones filled in, blank optional ones left out. */
export function promptArguments(values: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
}

/**
 * What a prompt puts in the message box: its user messages, joined by blank lines. Its assistant
 * messages are left out, since the box holds what the person sends, not a history.
 */
export function promptText(messages: PromptMessages['messages']): string {
	return messages
		.filter((m) => m.role === 'user')
		.map((m) => m.text)
		.join('\n\n');
}

export type ResourceChoice = Attachment & { label: string };

/** Every listed resource of every server, labelled for the attach menu; templates are not offered. */
export function resourceChoices(list: ResourceList): ResourceChoice[] {
	return list.servers.flatMap(({ server, resources }) =>
		resources.map((r) => ({ server, uri: r.uri, label: `${server}: ${r.title ?? r.name}` }))
	);
}

export const sameAttachment = (a: Attachment, b: Attachment) => a.server === b.server && a.uri === b.uri;
