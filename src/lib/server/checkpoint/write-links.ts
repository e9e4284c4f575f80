// Pending writes, and inline channel values, stored as links to the log items that hold the same bytes.
//
// Why: LangGraph keeps a step's new messages twice: as the task's pending write (on the checkpoint
// the step ran from) and, once reduced, in the next checkpoint's value, whose new items the saver
// appends to an item log. Stored both ways, every message would cost twice its bytes.
//
// How: when the child checkpoint is put, each pending write of its parent to the same channel whose
// serialised bytes are exactly some of the items just written (`item` for a one-message write,
// `[item,item,…]` for an array) is rewritten as a link to them. Reading the write rebuilds the same
// bytes, so it deserialises exactly as before. Anything else (a write the reducer changed, e.g. by
// assigning an id) keeps its bytes. Log items are never rewritten (see lg_logs in checkpoint/migrations/integer-keys.ts), so a link stays
// valid as long as its items are kept; retention counts links when it collects items.
//
// The same for a json value inline in the parent's channel map that holds those items between
// other bytes (a ValueLink): LangGraph keeps a run's input, `{"messages":[<message>]}`, in the
// `__start__` channel of the checkpoint the run starts from, and the message is the next
// checkpoint's new item.

import { unpack, type Encoding } from './blob.js';
import type { ChannelMap, ValueLink } from './channel-map.js';
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

/** Linked spans shorter than this stay inline: the link itself takes ~20 bytes. */
const VALUE_LINK_MIN_BYTES = 64;

/**
 * In the caller's transaction: the parent's inline json values that hold written items (joined by
 * commas) become ValueLinks, and the parent's channel map is rewritten. `parent.map` is updated in
 * place, so a put that appends to several channels links against one map.
 */
export function linkParentValues(
	store: CheckpointStore,
	threadId: string,
	ns: string,
	parent: { id: string; map: ChannelMap; encoding: Encoding },
	written: WrittenItems
): void {
	if (written.type !== 'json') return;
	let changed = false;
	for (const [channel, entry] of Object.entries(parent.map)) {
		if (!('v' in entry) || entry.v[0] !== 'json') continue;
		const bytes = Buffer.from(entry.v[1], 'utf8');
		const span = findSpan(bytes, written.bytes);
		if (span === undefined || span.end - span.offset < VALUE_LINK_MIN_BYTES) continue;
		const prefix = bytes.subarray(0, span.offset).toString('utf8');
		const suffix = bytes.subarray(span.end).toString('utf8');
		parent.map[channel] = { l: [written.logId, written.from + span.start, span.count, prefix, suffix] };
		changed = true;
	}
	if (changed) store.updateChannels(threadId, ns, parent.id, parent.map, parent.encoding);
}

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

const joined = (parts: Buffer[]) => parts.flatMap((part, i) => (i === 0 ? [part] : [COMMA, part]));

/**
 * The first place where `bytes` holds items[start..start+count-1] joined by commas, as the longest
 * such run from there: where it starts (`offset`) and ends in `bytes`.
 */
function findSpan(bytes: Buffer, items: readonly Uint8Array[]) {
	for (let start = 0; start < items.length; start += 1) {
		const offset = bytes.indexOf(items[start]!);
		if (offset < 0) continue;
		let end = offset + items[start]!.byteLength;
		let count = 1;
		for (let i = start + 1; i < items.length; i += 1) {
			const item = items[i]!;
			if (bytes[end] !== SEPARATOR || !bytes.subarray(end + 1, end + 1 + item.byteLength).equals(item)) break;
			end += 1 + item.byteLength;
			count += 1;
		}
		return { start, count, offset, end };
	}
	return undefined;
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
