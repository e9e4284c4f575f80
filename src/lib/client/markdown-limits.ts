/**
 * Caps on the work one message's Markdown may cost, checked before marked sees it. Past one, the
 * message is shown as plain text, which costs the page a text node. Pure; linear in the text.
 *
 * Issue 21 measured, in Chromium: `*a` × 20,000 took 1 s to render, `_a` × 20,000 2.3 s,
 * `<div>` × 20,000 2 s and a list nested 1,000 deep 10.9 s, each freezing the tab. marked's
 * emphasis matching is quadratic in the delimiters of one paragraph, list and quote nesting
 * recurses once per level, and every tag is a DOM node for DOMPurify and the page.
 */
export const MARKDOWN_LIMITS = {
	/** Characters of one message (a long answer of prose is about 20,000). */
	maxChars: 100_000,
	/** `*`, `_` and `~` in one paragraph (text between blank lines): 1,000 parse in milliseconds. */
	maxDelimitersPerParagraph: 1_000,
	/** HTML tags (`<` then a letter, `/` or `!`) in one message. */
	maxTags: 2_000,
	/** Columns of indentation before a line's text (a tab counts 4): 64 allow 32 levels of list. */
	maxIndent: 64,
	/** `>` quote markers opening one line. */
	maxQuoteDepth: 16
} as const;

export type MarkdownLimit = keyof typeof MARKDOWN_LIMITS;

/** The first cap `text` passes, or null when it may be parsed as Markdown. */
export function markdownOverLimit(text: string, limits: typeof MARKDOWN_LIMITS = MARKDOWN_LIMITS): MarkdownLimit | null {
	if (text.length > limits.maxChars) return 'maxChars';
	let tags = 0;
	let delimiters = 0;
	let lineStart = true;
	let indent = 0;
	let quotes = 0;
	let blank = true;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c === 10) {
			// A blank line ends the paragraph, and with it the run marked matches emphasis in.
			if (blank) delimiters = 0;
			lineStart = true;
			blank = true;
			indent = 0;
			quotes = 0;
			continue;
		}
		if (lineStart) {
			if (c === 32) indent += 1;
			else if (c === 9) indent += 4;
			else if (c === 62) quotes += 1;
			else if (c !== 13) lineStart = false;
			if (indent > limits.maxIndent) return 'maxIndent';
			if (quotes > limits.maxQuoteDepth) return 'maxQuoteDepth';
			// List markers in a row ("- - - a") nest as deep as indentation does.
			if (!lineStart && (c === 45 || c === 43 || c === 42) && text.charCodeAt(i + 1) === 32) {
				indent += 2;
				lineStart = true;
				i++;
				if (indent > limits.maxIndent) return 'maxIndent';
			}
		}
		if (c !== 32 && c !== 9 && c !== 13) blank = false;
		if (c === 42 || c === 95 || c === 126) {
			if (++delimiters > limits.maxDelimitersPerParagraph) return 'maxDelimitersPerParagraph';
		} else if (c === 60) {
			const next = text.charCodeAt(i + 1);
			const startsTag = (next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 47 || next === 33;
			if (startsTag && ++tags > limits.maxTags) return 'maxTags';
		}
	}
	return null;
}
