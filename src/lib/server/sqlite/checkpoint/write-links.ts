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
// assigning an id) keeps its bytes. Log items are never rewritten (see lg_logs in sqlite/checkpoint/migrations/integer-keys.ts), so a link stays
// valid as long as its items are kept; retention counts links when it collects items.
//
// The same for a json value inline in the parent's channel map that holds those items between
// other bytes (a ValueLink): LangGraph keeps a run's input, `{"messages":[<message>]}`, in the
// `__start__` channel of the checkpoint the run starts from, and the message is the next
// checkpoint's new item.

import { unpack, type Encoding } from '../../checkpoint/blob.js';
import { findSpan, joined, matchItems } from '../../checkpoint/write-link-bytes.js';
import type { ChannelMap, ValueLink } from '../../checkpoint/channel-map.js';
import type { CheckpointStore, StoredValue, WriteRow } from './store.js';

import { LINK, isLink, linkTarget, type Link } from '../../checkpoint/link-encoding.js';

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
		const match = matchItems(unpack(write.value, write.encoding), written.bytes);
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
