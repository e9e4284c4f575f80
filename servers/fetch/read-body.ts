// Reads a response body into memory under a byte cap, undoing any content encoding first so the
// cap bounds what is actually held (a small gzip body can inflate enormously).
import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { FetchError } from './errors.js';

export interface BodyLimit {
	maxBytes: number;
	/** 'error' refuses an oversized body; 'cut' keeps its first maxBytes bytes. */
	oversize: 'error' | 'cut';
}

export interface Body {
	bytes: Buffer;
	cut: boolean;
}

export async function readBody(response: IncomingMessage, url: URL, limit: BodyLimit): Promise<Body> {
	const declared = Number(response.headers['content-length']);
	if (limit.oversize === 'error' && declared > limit.maxBytes) {
		response.destroy();
		throw tooLarge(url, limit.maxBytes, `it declares ${declared} bytes`);
	}
	const stream = decoded(response, url);
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of stream as AsyncIterable<Buffer>) {
		if (size + chunk.length > limit.maxBytes) {
			response.destroy();
			if (limit.oversize === 'error') throw tooLarge(url, limit.maxBytes, 'stopped reading at the limit');
			chunks.push(chunk.subarray(0, limit.maxBytes - size));
			return { bytes: Buffer.concat(chunks), cut: true };
		}
		chunks.push(chunk);
		size += chunk.length;
	}
	return { bytes: Buffer.concat(chunks), cut: false };
}

// Only these are advertised in Accept-Encoding, so anything else is a misbehaving server.
const DECODERS: Record<string, () => Transform> = {
	gzip: zlib.createGunzip,
	'x-gzip': zlib.createGunzip,
	deflate: zlib.createInflate,
	br: zlib.createBrotliDecompress
};

function decoded(response: IncomingMessage, url: URL): Readable {
	const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
	if (encoding === 'identity') return response;
	const decoder = DECODERS[encoding];
	if (!decoder) {
		response.destroy();
		throw new FetchError(`Failed to fetch ${url.href}: unsupported Content-Encoding ${JSON.stringify(encoding)}.`);
	}
	// pipeline carries an error (or an abort) on the response through to the decoder we iterate.
	return pipeline(response, decoder(), () => {});
}

function tooLarge(url: URL, maxBytes: number, detail: string): FetchError {
	return new FetchError(
		`The response from ${url.href} is larger than FETCH_MAX_BYTES (${maxBytes} bytes; ${detail}), so it was refused.`
	);
}
