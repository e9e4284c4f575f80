// readBody on in-memory streams standing in for responses: no sockets involved.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../../servers/fetch/read-body.js';

const url = new URL('https://example.com/big');

function response(chunks: Buffer[], headers: Record<string, string> = {}): IncomingMessage {
	return Object.assign(Readable.from(chunks), { headers }) as unknown as IncomingMessage;
}

const kib = (n: number) => Buffer.alloc(n * 1024, 'a');

describe('readBody', () => {
	it('reads a body under the cap whole', async () => {
		expect(await readBody(response([kib(1), kib(1)]), url, { maxBytes: 4096, oversize: 'error' })).toEqual({
			bytes: Buffer.concat([kib(1), kib(1)]),
			cut: false
		});
	});

	it('refuses a body whose Content-Length is over the cap before reading it', async () => {
		await expect(
			readBody(response([kib(1)], { 'content-length': '999999' }), url, { maxBytes: 1000, oversize: 'error' })
		).rejects.toThrow(
			'The response from https://example.com/big is larger than FETCH_MAX_BYTES (1000 bytes; it declares 999999 bytes), so it was refused.'
		);
	});

	it('stops reading a streamed body at the cap and refuses it', async () => {
		await expect(readBody(response([kib(1), kib(1), kib(1)]), url, { maxBytes: 1500, oversize: 'error' })).rejects.toThrow(
			'(1500 bytes; stopped reading at the limit), so it was refused.'
		);
	});

	it('cuts instead, when asked to, keeping exactly the first maxBytes bytes', async () => {
		const { bytes, cut } = await readBody(response([kib(1), kib(1), kib(1)]), url, { maxBytes: 1500, oversize: 'cut' });
		expect(cut).toBe(true);
		expect(bytes.length).toBe(1500);
	});

	it('inflates gzip and applies the cap to the inflated size', async () => {
		const packed = gzipSync(kib(64));
		expect(packed.length).toBeLessThan(1024);
		const small = await readBody(response([packed], { 'content-encoding': 'gzip' }), url, {
			maxBytes: 128 * 1024,
			oversize: 'error'
		});
		expect(small.bytes.equals(kib(64))).toBe(true);
		await expect(
			readBody(response([packed], { 'content-encoding': 'gzip' }), url, { maxBytes: 16 * 1024, oversize: 'error' })
		).rejects.toThrow('stopped reading at the limit');
	});

	it('refuses an encoding it did not ask for', async () => {
		await expect(
			readBody(response([kib(1)], { 'content-encoding': 'zstd' }), url, { maxBytes: 4096, oversize: 'error' })
		).rejects.toThrow('unsupported Content-Encoding "zstd"');
	});
});
