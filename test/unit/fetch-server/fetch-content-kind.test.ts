import { describe, expect, it } from 'vitest';
import { decodeText, kindFromBody, kindFromHeader } from '../../../servers/fetch/content-kind.js';
import { FetchError } from '../../../servers/fetch/errors.js';

const url = new URL('https://example.com/thing');

describe('kindFromHeader', () => {
	it.each([
		['text/html; charset=utf-8', 'html'],
		['application/xhtml+xml', 'html'],
		['TEXT/HTML', 'html'],
		['text/plain', 'text'],
		['text/markdown', 'text'],
		['text/csv', 'text'],
		['application/json', 'text'],
		['application/ld+json', 'text'],
		['application/rss+xml', 'text'],
		['image/svg+xml', 'text'],
		['application/javascript', 'text'],
		['image/png', 'binary'],
		['image/jpeg', 'binary'],
		['application/octet-stream', 'binary'],
		['application/pdf', 'binary'],
		['application/zip', 'binary'],
		['audio/mpeg', 'binary'],
		['video/mp4', 'binary'],
		['font/woff2', 'binary'],
		['', 'unknown']
	])('%s is %s', (contentType, kind) => {
		expect(kindFromHeader(contentType)).toBe(kind);
	});
});

describe('kindFromBody', () => {
	const bytes = (text: string) => Buffer.from(text);

	it('sniffs an untyped body: markup is HTML, other text is text, NUL bytes are binary', () => {
		const page = '<!DOCTYPE html><html><body>x</body></html>';
		expect(kindFromBody('unknown', page, bytes(page), url, '')).toBe('html');
		expect(kindFromBody('unknown', 'plain words', bytes('plain words'), url, '')).toBe('text');
		expect(() => kindFromBody('unknown', '\u0000PK', Buffer.from([0, 0x50, 0x4b]), url, '')).toThrow(FetchError);
	});

	it('treats text whose start has <html as HTML, as the official server does', () => {
		const page = '<html><body>x</body></html>';
		expect(kindFromBody('text', page, bytes(page), url, 'text/plain')).toBe('html');
	});

	it('refuses binary bytes even under a text type', () => {
		expect(() => kindFromBody('text', 'GIF89a\u0000', Buffer.from('GIF89a\u0000'), url, 'text/plain')).toThrow(
			'Refusing to return https://example.com/thing: it is binary content (Content-Type text/plain); the fetch tool only returns HTML and text.'
		);
	});
});

describe('decodeText', () => {
	it('uses the charset of the Content-Type header', () => {
		const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
		expect(decodeText(latin1, 'text/plain; charset=ISO-8859-1', 'text')).toBe('café');
	});

	it('uses a <meta charset> when the header names none', () => {
		const page = Buffer.concat([Buffer.from('<meta charset="windows-1252"><p>'), Buffer.from([0x93, 0x68, 0x69, 0x94])]);
		expect(decodeText(page, 'text/html', 'html')).toBe('<meta charset="windows-1252"><p>\u201chi\u201d');
	});

	it('falls back to UTF-8 for a missing or unknown charset, and drops a BOM', () => {
		expect(decodeText(Buffer.from('\ufeffnaïve'), 'text/plain', 'text')).toBe('naïve');
		expect(decodeText(Buffer.from('naïve'), 'text/plain; charset=x-made-up', 'text')).toBe('naïve');
	});
});
