// In-process check that the socket really connects through the guarded lookup: "pages.test" exists
// only in the stub resolver, so a request that reaches the local page server can only have got its
// address from there. (The lookup's refusals themselves are unit-tested in fetch-lookup.test.ts.)
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedGet } from '../../servers/fetch/guarded-request.js';
import { readBody } from '../../servers/fetch/read-body.js';

let server: http.Server;
let port: number;
const requests: string[] = [];

beforeAll(async () => {
	server = http.createServer((request, response) => {
		requests.push(`${request.headers.host} ${request.url}`);
		response.writeHead(200, { 'Content-Type': 'text/plain' }).end(`hello from ${request.url}`);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
});

describe('guardedGet', () => {
	it('connects to the address its own resolver vetted', async () => {
		const asked: string[] = [];
		const resolve = async (hostname: string): Promise<LookupAddress[]> => {
			asked.push(hostname);
			return [{ address: '127.0.0.1', family: 4 }];
		};
		const { url, response } = await guardedGet(new URL(`http://pages.test:${port}/page`), {
			allowedHosts: [{ host: 'pages.test', port }],
			protectedHosts: [],
			resolve,
			userAgent: 'test',
			signal: AbortSignal.timeout(10_000)
		});
		const { bytes } = await readBody(response, url, { maxBytes: 1024, oversize: 'error' });
		expect(bytes.toString()).toBe('hello from /page');
		expect(requests).toEqual([`pages.test:${port} /page`]);
		// Once before connecting, once inside the socket's lookup.
		expect(asked).toEqual(['pages.test', 'pages.test']);
	});
});
