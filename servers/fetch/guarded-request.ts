// GET over node:http(s) with every hop vetted: the URL rules and DNS before connecting, the
// validating lookup while connecting. Redirects are followed here, by hand, so each new URL goes
// through the same gate; global fetch would follow them (or resolve names) out of our sight.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { FetchError } from './errors.js';
import { guardedLookup, vetHop, type Guard } from './target-guard.js';
import type { Target } from './url-policy.js';

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface RequestOptions extends Guard {
	userAgent: string;
	/** Aborts the whole exchange, body included; its reason is what the caller's await rejects with. */
	signal: AbortSignal;
	/** Runs for each hop once the hop's URL has passed the guard (robots.txt hooks in here). */
	beforeRequest?: (url: URL) => Promise<void>;
}

export interface Reply {
	/** Where the content finally came from, after redirects. */
	url: URL;
	response: IncomingMessage;
}

export async function guardedGet(start: URL, options: RequestOptions): Promise<Reply> {
	let url = start;
	for (let redirects = 0; ; redirects++) {
		const vetting = redirects === 0 ? vetHop(url, options) : vetRedirect(start, url, options);
		const target = await raceAbort(vetting, options.signal);
		await options.beforeRequest?.(url);
		const response = await requestOnce(target, options);
		const location = response.headers.location;
		if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) return { url, response };
		response.destroy();
		if (redirects === MAX_REDIRECTS) {
			throw new FetchError(`Failed to fetch ${start.href}: more than ${MAX_REDIRECTS} redirects.`);
		}
		url = nextUrl(location, url);
	}
}

async function vetRedirect(start: URL, url: URL, options: RequestOptions) {
	try {
		return await vetHop(url, options);
	} catch (error) {
		// The model asked for `start`; without it the refusal would name a URL it never saw.
		if (error instanceof FetchError) throw new FetchError(`While following redirects from ${start.href}: ${error.message}`);
		throw error;
	}
}

function nextUrl(location: string, from: URL): URL {
	try {
		return new URL(location, from);
	} catch {
		throw new FetchError(`Failed to fetch ${from.href}: it redirects to an invalid URL ${JSON.stringify(location)}.`);
	}
}

// dns.lookup cannot be cancelled; racing it keeps a hung resolver from outliving the timeout.
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
	return new Promise((resolve, reject) => {
		const abort = () => reject(signal.reason);
		if (signal.aborted) return abort();
		signal.addEventListener('abort', abort, { once: true });
		work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
	});
}

function requestOnce(target: Target, options: RequestOptions): Promise<IncomingMessage> {
	const { url } = target;
	const client = url.protocol === 'https:' ? https : http;
	return new Promise((resolve, reject) => {
		// An abort that already happened (say, during the robots.txt check) fires no event.
		if (options.signal.aborted) return reject(options.signal.reason);
		let response: IncomingMessage | undefined;
		const request = client.request(url, {
			method: 'GET',
			// A fresh connection per request: a pooled socket would skip the lookup check.
			agent: false,
			lookup: guardedLookup(target, options),
			headers: {
				'User-Agent': options.userAgent,
				Accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.8',
				'Accept-Encoding': 'gzip, deflate, br'
			}
		});
		const abort = () => {
			request.destroy(options.signal.reason);
			response?.destroy(options.signal.reason);
		};
		options.signal.addEventListener('abort', abort, { once: true });
		const release = () => options.signal.removeEventListener('abort', abort);
		request.on('response', (incoming) => {
			response = incoming;
			incoming.once('close', release);
			resolve(incoming);
		});
		request.on('error', (error) => {
			release();
			reject(error);
		});
		request.end();
	});
}
