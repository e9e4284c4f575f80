/**
 * Pure. What a thread's messages hold that the exfiltration guard and UNTRUSTED_CONTENT_WRITES go
 * by: the URLs known (what the person wrote, what an untrusted page contained), and which tools put
 * private data or untrusted content in the model's context.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { messageText } from '../agent/messages';
import { knownUrlsOf, requestedUrl, stringsOf } from './exfiltration-guard';

/** What the toolbox says of a tool; undefined for one no longer offered, whose results count as untrusted. */
export type ToolNature = { openWorld: boolean; private: boolean } | undefined;

export type RunContext = {
	/** Normalised URLs the model may request without asking (exfiltration-guard.ts). */
	known: Set<string>;
	/** Tools whose results in the context are private data. */
	privateFrom: string[];
	/** Tools whose results in the context are untrusted content (open-world, or no longer known). */
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
 */
export function readRunContext(messages: readonly BaseMessage[], natureOf: (tool: string) => ToolNature): RunContext {
	const known = new Set<string>();
	const privateFrom = new Set<string>();
	const untrustedFrom = new Set<string>();
	// By the latest call of each id: ids are reused (tools/journal-key.ts).
	const argsOf = new Map<string, unknown>();
	for (const m of messages) {
		if (HumanMessage.isInstance(m)) {
			for (const url of knownUrlsOf(messageText(m.content))) known.add(url);
		} else if (AIMessage.isInstance(m)) {
			for (const c of m.tool_calls ?? []) if (c.id) argsOf.set(c.id, c.args);
		} else if (ToolMessage.isInstance(m)) {
			const name = m.name ?? '';
			const nature = natureOf(name);
			if (nature?.private) privateFrom.add(name);
			if (nature && !nature.openWorld) continue;
			untrustedFrom.add(name);
			const echoed = urlsOfArgs(argsOf.get(m.tool_call_id));
			for (const url of knownUrlsOf(messageText(m.content))) if (!echoed.has(url)) known.add(url);
		}
	}
	return { known, privateFrom: [...privateFrom], untrustedFrom: [...untrustedFrom] };
}
