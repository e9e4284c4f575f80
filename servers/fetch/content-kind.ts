// What a response is (HTML, other text, or binary) and how to turn its bytes into a string.
// Pure. Binary is refused outright: decoded as text it is noise that costs the model tokens.
import { FetchError } from './errors.js';

export type Kind = 'html' | 'text' | 'binary' | 'unknown';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set([
	'application/json',
	'application/xml',
	'application/javascript',
	'application/x-javascript',
	'application/ecmascript',
	'application/x-ndjson',
	'application/yaml',
	'application/x-yaml',
	'application/toml',
	'application/sql',
	'application/graphql',
	'application/x-sh',
	'application/x-httpd-php'
]);

export function mimeType(contentType: string): string {
	return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** Judged from the Content-Type header alone, so binary is refused before its body is read. */
export function kindFromHeader(contentType: string): Kind {
	const mime = mimeType(contentType);
	if (mime === '') return 'unknown';
	if (HTML_TYPES.has(mime)) return 'html';
	if (mime.startsWith('text/') || TEXT_TYPES.has(mime) || /\+(json|xml|yaml)$/.test(mime)) return 'text';
	return 'binary';
}

/** The final kind once the body is known; throws for binary. */
export function kindFromBody(headerKind: Kind, text: string, bytes: Buffer, url: URL, contentType: string): 'html' | 'text' {
	if (headerKind === 'binary' || (headerKind !== 'html' && looksBinary(bytes))) {
		throw binaryRefusal(url, contentType);
	}
	if (headerKind === 'html') return 'html';
	// As the official server does: markup near the start wins over a vague or missing type.
	const start = text.slice(0, 100).toLowerCase();
	if (start.includes('<html') || (headerKind === 'unknown' && /^\s*<!doctype html/.test(start))) return 'html';
	return 'text';
}

export function binaryRefusal(url: URL, contentType: string): FetchError {
	const type = contentType ? `Content-Type ${mimeType(contentType)}` : 'no Content-Type, binary bytes';
	return new FetchError(
		`Refusing to return ${url.href}: it is binary content (${type}); the fetch tool only returns HTML and text.`
	);
}

// Text never contains NUL bytes; nearly every binary format does, early on.
function looksBinary(bytes: Buffer): boolean {
	return bytes.subarray(0, 1024).includes(0);
}

/** Decodes with the charset from the header, else a <meta charset> for HTML, else UTF-8. */
export function decodeText(bytes: Buffer, contentType: string, kind: Kind): string {
	let decoder: TextDecoder;
	try {
		decoder = new TextDecoder(declaredCharset(bytes, contentType, kind) ?? 'utf-8');
	} catch {
		// An unknown charset label: UTF-8 is the best guess left.
		decoder = new TextDecoder('utf-8');
	}
	const text = decoder.decode(bytes);
	return decoder.encoding === 'windows-1252' ? text.replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!) : text;
}

function declaredCharset(bytes: Buffer, contentType: string, kind: Kind): string | undefined {
	const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
	if (fromHeader || kind === 'text') return fromHeader;
	// Many pages name their charset only in the markup, within the first 1024 bytes as HTML requires.
	return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(bytes.subarray(0, 1024).toString('latin1'))?.[1];
}

// Node 20 decodes windows-1252 (the label the web uses for every "latin1" page) as ISO-8859-1,
// leaving its curly quotes, dashes and euro sign as C1 control characters; these are their
// windows-1252 meanings (the five bytes it leaves undefined map to themselves).
const CP1252_HIGH = [
	...'\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f',
	...'\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178'
];
