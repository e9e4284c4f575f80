// Reading pending writes, and inline channel values, stored as links to the log items that hold the
// same bytes. Which writes and values become links, and why, is checkpoint/put-plan.ts (writeLinks,
// valueLinks); reading a link rebuilds the bytes it stood for, so it deserialises exactly as before.

import { unpack } from '../../checkpoint/blob.js';
import { joined } from '../../checkpoint/write-link-bytes.js';
import type { ValueLink } from '../../checkpoint/channel-map.js';
import type { CheckpointStore, StoredValue, WriteRow } from './store.js';

import { LINK, isLink, linkTarget } from '../../checkpoint/link-encoding.js';

/** A write's serialised bytes, following a link to the items it names. */
export function writeBytes(store: CheckpointStore, write: Pick<WriteRow, 'value' | 'encoding'>): Buffer {
	if (!isLink(write.encoding)) return unpack(write.value, write.encoding);
	const { logId, seq, count } = linkTarget(write);
	const parts = itemBytes(store, logId, seq, count);
	if (write.encoding === LINK.ITEM) return parts[0]!;
	return Buffer.concat([Buffer.from('['), ...joined(parts), Buffer.from(']')]);
}

/** A ValueLink's serialised bytes. */
export function linkedValueBytes(store: CheckpointStore, [logId, seq, count, prefix, suffix]: ValueLink): Buffer {
	return Buffer.concat([Buffer.from(prefix, 'utf8'), ...joined(itemBytes(store, logId, seq, count)), Buffer.from(suffix, 'utf8')]);
}

function itemBytes(store: CheckpointStore, logId: number, seq: number, count: number): Buffer[] {
	const items: StoredValue[] = store.items(logId, seq, seq + count);
	if (items.length !== count) throw new Error(`checkpoint store: log ${logId} lacks items ${seq}..${seq + count - 1}`);
	return items.map((item) => unpack(item.value, item.encoding));
}
