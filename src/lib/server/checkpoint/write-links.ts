// Pending writes stored as links to the log items that hold the same bytes.
//
// Why: LangGraph keeps a step's new messages twice: as the task's pending write (on the checkpoint
// the step ran from) and, once reduced, in the next checkpoint's value, whose new items the saver
// appends to an item log. Stored both ways, every message would cost twice its bytes.
//
// How: when the child checkpoint is put, each pending write of its parent to the same channel whose
// serialised bytes are exactly some of the items just written (`item` for a one-message write,
// `[item,item,…]` for an array) is rewritten as a link to them. Reading the write rebuilds the same
// bytes, so it deserialises exactly as before. Anything else (a write the reducer changed, e.g. by
// assigning an id) keeps its bytes. Log items are never rewritten (see lg_logs in checkpoint/migrations/), so a link stays
// valid as long as its items are kept; retention counts links when it collects items.

import { unpack } from './blob.js';
import type { CheckpointStore, StoredValue, WriteRow } from './store.js';

/** Write encodings beyond blob.ts: the value is the JSON of a link. */
export const LINK = {
	/** `[logId, seq]`: the write is that item. */
	ITEM: 10,
	/** `[logId, seq, count]`: the write is the JSON array of those items. */
	ITEMS: 11
} as const;

type Link = [logId: number, seq: number, count?: number];

export function isLink(encoding: number): boolean {
	return encoding === LINK.ITEM || encoding === LINK.ITEMS;
}

/** Where a link points: log items seq .. seq + count - 1. */
export function linkTarget(write: Pick<WriteRow, 'value' | 'encoding'>): { logId: number; seq: number; count: number } {
	const [logId, seq, count = 1] = JSON.parse(write.value.toString('utf8')) as Link;
	return { logId, seq, count };
}

export interface WrittenItems {
	logId: number;
	/** Position of the first item in the log. */
	from: number;
	type: string;
	/** Serialised items as written (before encoding). */
	bytes: readonly Uint8Array[];
}

/** In the caller's transaction: link the parent's writes to `channel` that equal written items. */
export function linkParentWrites(
	store: CheckpointStore,
	threadId: string,
	ns: string,
	parentId: string,
	channel: string,
	written: WrittenItems
): void {
	for (const write of store.writes(threadId, ns, parentId)) {
		if (write.channel !== channel || write.type !== written.type || isLink(write.encoding)) continue;
		const match = findItems(unpack(write.value, write.encoding), written.bytes);
		if (match === undefined) continue;
		const seq = written.from + match.start;
		const link: Link = match.array ? [written.logId, seq, match.count] : [written.logId, seq];
		store.relinkWrite(threadId, ns, parentId, write, Buffer.from(JSON.stringify(link)), match.array ? LINK.ITEMS : LINK.ITEM);
	}
}

/** A write's serialised bytes, following a link to the items it names. */
export function writeBytes(store: CheckpointStore, write: Pick<WriteRow, 'value' | 'encoding'>): Buffer {
	if (!isLink(write.encoding)) return unpack(write.value, write.encoding);
	const { logId, seq, count } = linkTarget(write);
	const items: StoredValue[] = store.items(logId, seq, seq + count);
	if (items.length !== count) throw new Error(`checkpoint store: log ${logId} lacks items ${seq}..${seq + count - 1}`);
	const parts = items.map((item) => unpack(item.value, item.encoding));
	if (write.encoding === LINK.ITEM) return parts[0]!;
	return Buffer.concat([Buffer.from('['), ...parts.flatMap((part, i) => (i === 0 ? [part] : [COMMA, part])), Buffer.from(']')]);
}

const COMMA = Buffer.from(',');
const OPEN = '['.charCodeAt(0);
const CLOSE = ']'.charCodeAt(0);
const SEPARATOR = ','.charCodeAt(0);

/** Where `bytes` is one of `items`, or `[` items[start..start+count-1] joined by `,` `]`. */
function findItems(
	bytes: Buffer,
	items: readonly Uint8Array[]
): { start: number; count: number; array: boolean } | undefined {
	for (let start = 0; start < items.length; start += 1) {
		if (bytes.equals(items[start]!)) return { start, count: 1, array: false };
	}
	if (bytes.length < 3 || bytes[0] !== OPEN || bytes[bytes.length - 1] !== CLOSE) return undefined;
	for (let start = 0; start < items.length; start += 1) {
		let offset = 1;
		for (let i = start; i < items.length; i += 1) {
			const item = items[i]!;
			if (!bytes.subarray(offset, offset + item.byteLength).equals(item)) break;
			offset += item.byteLength;
			if (offset === bytes.length - 1) return { start, count: i - start + 1, array: true };
			if (bytes[offset] !== SEPARATOR) break;
			offset += 1;
		}
	}
	return undefined;
}
