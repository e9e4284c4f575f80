import { describe, expect, it } from 'vitest';
import { MARKDOWN_LIMITS, markdownOverLimit } from '../../../src/lib/client/markdown-limits';

const nestedList = (depth: number) => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- a`).join('\n');
const nestedQuote = (depth: number) => `${'> '.repeat(depth)}a`;

// Issue 21: each of these froze the tab for one to eleven seconds.
describe('markdown limits', () => {
	it.each([
		['*a × 20,000', '*a'.repeat(20_000), 'maxDelimitersPerParagraph'],
		['_a × 20,000', '_a'.repeat(20_000), 'maxDelimitersPerParagraph'],
		['~a × 20,000', '~a'.repeat(20_000), 'maxDelimitersPerParagraph'],
		['<div> × 20,000', '<div>'.repeat(20_000), 'maxTags'],
		['a list nested 1,000 deep', nestedList(1_000), 'maxChars'],
		['a list nested 100 deep', nestedList(100), 'maxIndent'],
		['a list nested 1,000 deep on one line', `${'- '.repeat(1_000)}a`, 'maxIndent'],
		['a list nested 100 deep by tabs', Array.from({ length: 100 }, (_, i) => `${'\t'.repeat(i)}- a`).join('\n'), 'maxIndent'],
		['a quote nested 1,000 deep', nestedQuote(1_000), 'maxQuoteDepth'],
		['200,000 plain characters', 'a'.repeat(200_000), 'maxChars']
	])('refuses %s', (_name, text, limit) => {
		expect(markdownOverLimit(text)).toBe(limit);
	});

	it('lets ordinary Markdown through, long and richly formatted', () => {
		const paragraph = 'Some **bold**, _italic_ and ~~struck~~ text with `code`, <kbd>Ctrl</kbd> and a [link](https://e.test).';
		expect(markdownOverLimit(Array(500).fill(paragraph).join('\n\n'))).toBeNull();
		expect(markdownOverLimit(nestedList(20))).toBeNull();
		expect(markdownOverLimit(nestedQuote(10))).toBeNull();
		expect(markdownOverLimit('```\n' + '    '.repeat(10) + 'deep code\n```')).toBeNull();
	});

	it('counts delimiters per paragraph: a blank line starts the count again', () => {
		const under = '*a'.repeat(MARKDOWN_LIMITS.maxDelimitersPerParagraph * 0.6);
		expect(markdownOverLimit(under)).toBeNull();
		expect(markdownOverLimit(`${under}\n\n${under}`)).toBeNull();
		expect(markdownOverLimit(`${under}\n${under}`)).toBe('maxDelimitersPerParagraph');
		expect(markdownOverLimit(`${under}\n \n${under}`)).toBeNull();
	});

	it('stops at each cap exactly', () => {
		expect(markdownOverLimit('a'.repeat(MARKDOWN_LIMITS.maxChars))).toBeNull();
		expect(markdownOverLimit('a'.repeat(MARKDOWN_LIMITS.maxChars + 1))).toBe('maxChars');
		expect(markdownOverLimit('<b>'.repeat(MARKDOWN_LIMITS.maxTags))).toBeNull();
		expect(markdownOverLimit('<b>'.repeat(MARKDOWN_LIMITS.maxTags + 1))).toBe('maxTags');
		expect(markdownOverLimit(' '.repeat(MARKDOWN_LIMITS.maxIndent) + 'a')).toBeNull();
		expect(markdownOverLimit(' '.repeat(MARKDOWN_LIMITS.maxIndent + 1) + 'a')).toBe('maxIndent');
		expect(markdownOverLimit('> '.repeat(MARKDOWN_LIMITS.maxQuoteDepth) + 'a')).toBeNull();
		expect(markdownOverLimit('> '.repeat(MARKDOWN_LIMITS.maxQuoteDepth + 1) + 'a')).toBe('maxQuoteDepth');
		// `a < b` is not a tag.
		expect(markdownOverLimit('1 < 2 '.repeat(MARKDOWN_LIMITS.maxTags + 1))).toBeNull();
	});
});
