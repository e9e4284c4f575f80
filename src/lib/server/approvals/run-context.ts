/**
 * Pure. What a thread's messages hold that the exfiltration guard and UNTRUSTED_CONTENT_WRITES go
 * by: the URLs known (what the person wrote, what an untrusted page contained), and which tools and
 * attached resources put private data or untrusted content in the model's context.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { messageText } from '../agent/messages';
import { attachedResources } from '../mcp/attachments';
import { knownUrlsOf, requestedUrl, stringsOf } from './exfiltration-guard';

/** What the toolbox says of a tool; undefined for one no longer offered, whose results count as untrusted. */
export type ToolNature = { openWorld: boolean; private: boolean } | undefined;

/** What the toolbox says of a tool, and of an attached resource by its server (toolbox.ts resourceNature). */
export type Natures = { tool: (name: string) => ToolNature; resource: (server: string) => ToolNature };

export type RunContext = {
	/** Normalised URLs the model may request without asking (exfiltration-guard.ts). */
	known: Set<string>;
	/** Tools (and attached resources) whose results in the context are private data. */
	privateFrom: string[];
	/** Tools (and attached resources) whose results in the context are untrusted content (open-world, or no longer known). */
	untrustedFrom: string[];
};

/** Every URL a call's arguments name, whole or inside text: what its result may only be echoing. */
function urlsOfArgs(args: unknown): Set<string> {
	const urls = new Set<string>();
	for (const s of stringsOf(args)) {
		const whole = requestedUrl(s);
		if (whole) urls.add(whole);
		for (const url of knownUrlsOf(s)) urls.add(url);
	}
	return urls;
}

/**
 * A URL is known when the person wrote it or an untrusted page contained it. A tool result that
 * echoes its own call's arguments (memory create returns what it stored, a fetch names the URL it
 * read) does not make what the model wrote known: that is how a composed URL was laundered. Results
 * of tools that do not reach the web add no URL at all.
 *
 * A resource attached to a message is its server's content, not the person's: it counts as a result
 * of that server would, untrusted (its URLs known, as a page's links) unless the server is trusted,
 * private data if the server is private. Its URI the person chose, so it is known.
 */
export function readRunContext(messages: readonly BaseMessage[], natures: Natures): RunContext {
	const known = new Set<string>();
	const privateFrom = new Set<string>();
	const untrustedFrom = new Set<string>();
	const count = (from: string, nature: ToolNature, urls: () => string[]) => {
		if (nature?.private) privateFrom.add(from);
		if (nature && !nature.openWorld) return;
		untrustedFrom.add(from);
		for (const url of urls()) known.add(url);
	};
	// By the latest call of each id: ids are reused (tools/journal-key.ts).
	const argsOf = new Map<string, unknown>();
	for (const m of messages) {
		if (HumanMessage.isInstance(m)) {
			const { text, resources } = attachedResources(messageText(m.content));
			for (const url of knownUrlsOf(text)) known.add(url);
			for (const r of resources) {
				const uri = requestedUrl(r.uri);
				if (uri) known.add(uri);
				count(`${r.server} resource ${r.uri}`, natures.resource(r.server), () => knownUrlsOf(r.text));
			}
		} else if (AIMessage.isInstance(m)) {
			for (const c of m.tool_calls ?? []) if (c.id) argsOf.set(c.id, c.args);
		} else if (ToolMessage.isInstance(m)) {
			const name = m.name ?? '';
			count(name, natures.tool(name), () => {
				const echoed = urlsOfArgs(argsOf.get(m.tool_call_id));
				return knownUrlsOf(messageText(m.content)).filter((url) => !echoed.has(url));
			});
		}
	}
	return { known, privateFrom: [...privateFrom], untrustedFrom: [...untrustedFrom] };
}
