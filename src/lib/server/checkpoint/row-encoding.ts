// How a checkpoint row's skeleton and channel map are encoded (the `checkpoint`, `channels` and
// `encoding` columns). Pure: shared by the SQLite store and the PostgreSQL engine.

import { ENCODING, encode, unpack, type Encoding } from './blob.js';
import type { ChannelMap } from './channel-map.js';

/** A checkpoint's skeleton bytes and channel map as stored: both in one encoding, the smaller. */
export function encodeCheckpoint(skeleton: Uint8Array, map: ChannelMap) {
	const channels = Buffer.from(JSON.stringify(map));
	const packed = { checkpoint: encode(skeleton, ENCODING.DICTIONARY_V1), channels: encode(channels, ENCODING.DICTIONARY_V1) };
	return packed.checkpoint.byteLength + packed.channels.byteLength < skeleton.byteLength + channels.byteLength
		? { ...packed, encoding: ENCODING.DICTIONARY_V1 as Encoding }
		: { checkpoint: skeleton, channels, encoding: ENCODING.RAW as Encoding };
}

export function skeletonBytes(row: { checkpoint: Uint8Array; encoding: number }): Buffer {
	return unpack(row.checkpoint, row.encoding);
}

/** `channels` is text in SQLite rows written before encodings existed. */
export function channelMapOf(row: { channels: Uint8Array | string; encoding: number }): ChannelMap {
	const text = typeof row.channels === 'string' ? row.channels : unpack(row.channels, row.encoding).toString('utf8');
	return JSON.parse(text) as ChannelMap;
}
