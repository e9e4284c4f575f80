// How stored bytes are encoded (the `encoding` column of items, writes and checkpoints).
//
// Most stored values are small JSON documents made of the same vocabulary: serialised LangChain
// messages (`{"lc":1,"type":"constructor","id":["langchain_core","messages",…` is ~100 bytes of a
// 190-byte human message) and checkpoint bookkeeping (channel versions, metadata). Plain deflate
// cannot shrink a 200-byte value much; deflate with a preset dictionary of that vocabulary
// shrinks it 3-5×, and still compresses tool results (web pages, files) 2-3×.
//
// A dictionary is part of the file format (dictionaries.ts): values are written with the newest,
// and every encoding that was ever written is still read.

import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { DICTIONARY_V1, DICTIONARY_V2 } from './dictionaries.js';

export const ENCODING = {
	RAW: 0,
	/** deflate-raw, no dictionary (written before DICTIONARY_V1 existed; still read). */
	DEFLATE: 1,
	/** deflate-raw with DICTIONARY_V1 (written before DICTIONARY_V2 existed; still read). */
	DICTIONARY_V1: 2,
	/** deflate-raw with DICTIONARY_V2: what is written now. */
	DICTIONARY_V2: 3
} as const;

/** The encoding values are written with. */
export const CURRENT_ENCODING = ENCODING.DICTIONARY_V2;

export type Encoding = (typeof ENCODING)[keyof typeof ENCODING];

/** Below this, deflate's own framing outweighs any saving. */
const COMPRESS_MIN_BYTES = 24;

export interface PackedValue {
	value: Uint8Array;
	encoding: Encoding;
}

/** The smaller of the bytes as they are and the bytes with the current dictionary. */
export function pack(bytes: Uint8Array): PackedValue {
	if (bytes.byteLength < COMPRESS_MIN_BYTES) return { value: bytes, encoding: ENCODING.RAW };
	const deflated = encode(bytes, CURRENT_ENCODING);
	return deflated.byteLength < bytes.byteLength
		? { value: deflated, encoding: CURRENT_ENCODING }
		: { value: bytes, encoding: ENCODING.RAW };
}

export function encode(bytes: Uint8Array, encoding: Encoding): Uint8Array {
	switch (encoding) {
		case ENCODING.RAW:
			return bytes;
		case ENCODING.DEFLATE:
			return deflateRawSync(bytes);
		case ENCODING.DICTIONARY_V1:
			return deflateRawSync(bytes, { dictionary: DICTIONARY_V1 });
		case ENCODING.DICTIONARY_V2:
			return deflateRawSync(bytes, { dictionary: DICTIONARY_V2 });
	}
}

export function unpack(value: Uint8Array, encoding: number): Buffer {
	switch (encoding) {
		case ENCODING.RAW:
			return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
		case ENCODING.DEFLATE:
			return inflateRawSync(value);
		case ENCODING.DICTIONARY_V1:
			return inflateRawSync(value, { dictionary: DICTIONARY_V1 });
		case ENCODING.DICTIONARY_V2:
			return inflateRawSync(value, { dictionary: DICTIONARY_V2 });
		default:
			throw new Error(`checkpoint store: unknown value encoding ${encoding}`);
	}
}
