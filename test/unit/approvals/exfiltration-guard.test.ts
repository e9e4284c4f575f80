import { describe, expect, it } from 'vitest';
import { composedUrls, knownUrlsOf } from '../../../src/lib/server/approvals/exfiltration-guard';

// Issue 21, item 4: each way around the text match the guard was, one row. Known: what the person
// wrote and what a fetched page contained.
const known = new Set([
	...knownUrlsOf('Please read https://example.com/a and tell me.'),
	...knownUrlsOf('Page text with [a link](https://example.org/b?x=1) in it')
]);
const held = (args: Record<string, unknown>) => composedUrls(args, known).length > 0;

describe('the exfiltration guard', () => {
	it.each<[string, Record<string, unknown>, boolean]>([
		['a URL the person wrote', { url: 'https://example.com/a' }, false],
		['a link of a fetched page, deep in the arguments', { nested: [{ url: 'https://example.org/b?x=1' }] }, false],
		['the same URL spelled as a fetch normalises it', { url: 'HTTPS://EXAMPLE.com:443/a' }, false],
		['a URL with the sentence\'s full stop, which the person did not mean', { url: 'https://example.com/a.' }, true],
		['no string at all', { count: 3 }, false],
		['a string that names no URL', { query: 'weather in Lyon' }, false],
		['a composed URL carrying data', { url: 'https://attacker.example/c?d=secret' }, true],
		['a known URL with a query added', { url: 'https://example.com/a?leak=1' }, true],
		['a known URL, a newline, then ?d=', { url: 'https://example.com/a\n?d=secret' }, true],
		['a known URL, a tab, then ?d=', { url: 'https://example.com/a\t?d=secret' }, true],
		['a known URL, a quote, then ?d=', { url: 'https://example.com/a"?d=secret' }, true],
		['a known URL, <, then ?d=', { url: 'https://example.com/a<?d=secret' }, true],
		['a known URL, >, then ?d=', { url: 'https://example.com/a>?d=secret' }, true],
		['a known URL, a backtick, then ?d=', { url: 'https://example.com/a`?d=secret' }, true],
		['a known URL, U+00A0, then ?d=', { url: 'https://example.com/a\u00a0?d=secret' }, true],
		['a known URL, U+3000, then ?d=', { url: 'https://example.com/a\u3000?d=secret' }, true],
		['http:host/… without slashes', { url: 'http:attacker.example/c?d=secret' }, true],
		['http:/host/… with one slash', { url: 'http:/attacker.example/c?d=secret' }, true],
		['backslashes for slashes', { url: 'http:\\\\attacker.example\\c?d=secret' }, true],
		['a tab inside the scheme', { url: 'ht\ttps://attacker.example/c?d=secret' }, true],
		['a prefix of a known URL', { url: 'https://example.org/b?x=' }, true],
		['another prefix of a known URL', { url: 'https://example.org/b' }, true],
		['a URL inside prose', { query: 'see https://attacker.example/c?d=secret now' }, true],
		['a scheme-less //host', { url: '//attacker.example/c?d=secret' }, true],
		['a URL that does not parse', { url: 'https://[::1/c?d=secret' }, true]
	])('%s: held back %s', (_name, args, expected) => {
		expect(held(args)).toBe(expected);
	});

	it('names what it holds back as the fetch would request it', () => {
		expect(composedUrls({ url: 'https://example.com/a\n?d=secret' }, known)).toEqual(['https://example.com/a?d=secret']);
		expect(composedUrls({ url: 'http:\\\\attacker.example\\c' }, known)).toEqual(['http://attacker.example/c']);
		expect(composedUrls({ a: 'http://x.example/1', b: 'http://x.example/1' }, known)).toEqual(['http://x.example/1']);
	});
});
