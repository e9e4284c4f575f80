// Large stored values (log items, pending writes) are deflated: tool results (web pages, files)
// are most of a conversation's bytes and compress 2-3×. Small JSON barely shrinks, so values
// under COMPRESS_MIN_BYTES are stored as they are, as are values deflate does not make smaller.

import { deflateRawSync, inflateRawSync } from 'node:zlib';

export const COMPRESS_MIN_BYTES = 1024;

export interface PackedValue {
	value: Uint8Array;
	/** 1 when `value` is deflate-raw of the serialised bytes. */
	deflated: 0 | 1;
}

export function pack(bytes: Uint8Array): PackedValue {
	if (bytes.byteLength < COMPRESS_MIN_BYTES) return { value: bytes, deflated: 0 };
	const deflated = deflateRawSync(bytes);
	return deflated.byteLength < bytes.byteLength ? { value: deflated, deflated: 1 } : { value: bytes, deflated: 0 };
}

export function unpack(value: Uint8Array, deflated: number): Buffer {
	return deflated ? inflateRawSync(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}
