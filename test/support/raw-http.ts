import http from 'node:http';

export type RawResponse = { status: number; headers: http.IncomingHttpHeaders; body: string };

/**
 * One request over node:http, which, unlike fetch, sends any Host and Origin a test names: what a
 * rebinding page, a proxy or a hostile client puts on the wire. Reads the whole answer, so an SSE
 * stream must end by itself.
 */
export function rawRequest(
	url: string,
	options: {
		method?: string;
		/** A flat name, value, name, value … list sends a header twice, and no Host but those named. */
		headers?: Record<string, string> | string[];
		body?: string;
		omitHost?: boolean;
		/** The address the request leaves from: any of 127.0.0.0/8 on loopback. */
		localAddress?: string;
	} = {}
): Promise<RawResponse> {
	return new Promise((resolve, reject) => {
		const init = {
			method: options.method ?? 'GET',
			headers: options.headers,
			agent: false,
			setHost: !options.omitHost && !Array.isArray(options.headers),
			localAddress: options.localAddress
		};
		const req = http.request(url, init, (res) => {
			let body = '';
			res.setEncoding('utf8');
			res.on('data', (chunk: string) => (body += chunk));
			res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end(options.body);
	});
}
