// How a checkpoint row's parts (skeleton, channel map, metadata) are encoded: the `checkpoint`,
// `channels`, `metadata` and `encoding` columns. Pure: shared by the SQLite store and the
// PostgreSQL engine.

import { CURRENT_ENCODING, ENCODING, encode, unpack, type Encoding } from './blob.js';
import type { ChannelMap } from './channel-map.js';

/** A row's parts in one encoding, the smaller: all with the current dictionary, or all as they are. */
export function encodeTogether<K extends string>(parts: Record<K, Uint8Array>): Record<K, Uint8Array> & { encoding: Encoding } {
	const entries = Object.entries(parts) as [K, Uint8Array][];
	const packed = Object.fromEntries(entries.map(([key, bytes]) => [key, encode(bytes, CURRENT_ENCODING)])) as Record<K, Uint8Array>;
	const size = (values: Uint8Array[]) => values.reduce((n, value) => n + value.byteLength, 0);
	return size(Object.values(packed)) < size(entries.map(([, bytes]) => bytes))
		? { ...packed, encoding: CURRENT_ENCODING }
		: { ...parts, encoding: ENCODING.RAW };
}

/**
 * A checkpoint's skeleton, channel map and metadata as the SQLite store keeps them: all three in one
 * encoding, the smaller. (Metadata is filtered on in SQL through lg_metadata(), see store.ts.)
 */
export function encodeCheckpoint(skeleton: Uint8Array, map: ChannelMap, metadata: Uint8Array) {
	return encodeTogether({ checkpoint: skeleton, channels: Buffer.from(JSON.stringify(map)), metadata });
}

export function skeletonBytes(row: { checkpoint: Uint8Array; encoding: number }): Buffer {
	return unpack(row.checkpoint, row.encoding);
}

export function metadataOf(row: { metadata: Uint8Array; encoding: number }): Buffer {
	return unpack(row.metadata, row.encoding);
}

/** `channels` is text in SQLite rows written before encodings existed. */
export function channelMapOf(row: { channels: Uint8Array | string; encoding: number }): ChannelMap {
	const text = typeof row.channels === 'string' ? row.channels : unpack(row.channels, row.encoding).toString('utf8');
	return JSON.parse(text) as ChannelMap;
}
