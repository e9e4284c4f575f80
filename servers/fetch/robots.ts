// robots.txt, as the official mcp-server-fetch reads it: 401/403 means "no autonomous fetching",
// any other 4xx means "no rules". Stricter on one point, following RFC 9309: a 5xx or an
// unreachable robots.txt means "assume everything is disallowed".
import { createRequire } from 'node:module';
import { FetchError } from './errors.js';
import { guardedGet, type RequestOptions } from './guarded-request.js';
import { readBody } from './read-body.js';

// The package is CommonJS (module.exports = fn) but its types declare an ES default export; require
// gives the function under every module setting instead of depending on interop rules.
const robotsParser: typeof import('robots-parser').default = createRequire(import.meta.url)('robots-parser');

// RFC 9309 asks crawlers to read at least 500 KiB; the rest of a longer file is ignored.
const ROBOTS_MAX_BYTES = 500 * 1024;

export interface RobotsFile {
	status: number;
	text: string;
}

export function robotsUrlFor(url: URL): URL {
	return new URL('/robots.txt', url.origin);
}

/** The refusal message for `url`, or undefined when robots.txt lets `userAgent` fetch it. Pure. */
export function robotsVerdict(url: URL, file: RobotsFile, userAgent: string): string | undefined {
	const robotsUrl = robotsUrlFor(url).href;
	const manual = 'The assistant must let the user know that it failed to view the page.';
	const unauthorized = file.status === 401 || file.status === 403;
	if (!unauthorized && file.status >= 400 && file.status < 500) return undefined;
	if (file.status < 200 || file.status >= 300) {
		return `When fetching robots.txt (${robotsUrl}), received status ${file.status} so assuming that autonomous fetching is not allowed. ${manual}`;
	}
	const robots = robotsParser(robotsUrl, file.text);
	if (robots.isAllowed(url.href, userAgent) !== false) return undefined;
	const line = file.text.split(/\r?\n/)[robots.getMatchingLineNumber(url.href, userAgent) - 1]?.trim();
	return (
		`Blocked by robots.txt: ${robotsUrl} does not allow ${userAgent} to fetch ${url.href}` +
		`${line ? ` (rule: "${line}")` : ''}. ${manual}`
	);
}

/** Downloads robots.txt through the same guarded client as the page itself. */
export async function fetchRobotsFile(robotsUrl: URL, options: RequestOptions): Promise<RobotsFile> {
	try {
		const { response } = await guardedGet(robotsUrl, { ...options, beforeRequest: undefined });
		const status = response.statusCode ?? 0;
		if (status < 200 || status >= 300) {
			response.destroy();
			return { status, text: '' };
		}
		const { bytes } = await readBody(response, robotsUrl, { maxBytes: ROBOTS_MAX_BYTES, oversize: 'cut' });
		return { status, text: bytes.toString('utf8') };
	} catch (error) {
		if (error instanceof FetchError || options.signal.aborted) throw error;
		throw new FetchError(
			`Failed to fetch robots.txt ${robotsUrl.href} due to a connection issue (${(error as Error).message}), ` +
				'so assuming that autonomous fetching is not allowed.'
		);
	}
}

/**
 * A `beforeRequest` hook that checks each hop against its origin's robots.txt, downloading each
 * origin's file once per tool call.
 */
export function robotsGate(options: RequestOptions): (url: URL) => Promise<void> {
	const files = new Map<string, Promise<RobotsFile>>();
	return async (url) => {
		let file = files.get(url.origin);
		if (!file) {
			file = fetchRobotsFile(robotsUrlFor(url), options);
			files.set(url.origin, file);
		}
		const refusal = robotsVerdict(url, await file, options.userAgent);
		if (refusal) throw new FetchError(refusal);
	};
}
