// Which of a parent's pending writes and inline values a put turns into links to the log items it
// appends (link-encoding.ts); part of the put plan (put-plan.ts), pure so both engines share it.

import { unpack } from './blob.js';
import type { ChannelMap } from './channel-map.js';
import { LINK, isLink, type Link } from './link-encoding.js';
import type { AppliedLogWrite } from './segments.js';
import { findSpan, matchItems } from './write-link-bytes.js';

/** A pending write of the parent, as the plan compares it with the items a put appends. */
export interface ParentWrite {
	task_id: string;
	idx: number;
	channel: string;
	type: string;
	value: Uint8Array;
	encoding: number;
}

/** A parent's pending write that from now on is stored as a link (link-encoding.ts). */
export interface Relink {
	write: ParentWrite;
	value: Buffer;
	encoding: number;
}

/** Linked spans of an inline value shorter than this stay inline: the link itself takes ~20 bytes. */
const VALUE_LINK_MIN_BYTES = 64;

/**
 * The parent's pending writes whose serialised bytes are exactly some of the items a put appends to
 * the same channel (`item`, or `[item,item,…]`), as links to them. Why: LangGraph keeps a step's new
 * messages both as the task's pending write and, reduced, in the next checkpoint's value; linked,
 * each message is stored once. Reading the link rebuilds the same bytes. A write the reducer
 * changed (e.g. by assigning an id) keeps its bytes. Log items are never rewritten, so a link stays
 * valid as long as its items are kept; retention counts links when it collects items.
 */
export function writeLinks(writes: readonly ParentWrite[], placed: readonly AppliedLogWrite[]): Relink[] {
	const relinks: Relink[] = [];
	for (const { channel, logId, type, from, bytes } of placed) {
		if (logId === undefined || type === undefined) continue;
		for (const write of writes) {
			if (write.channel !== channel || write.type !== type || isLink(write.encoding)) continue;
			const match = matchItems(unpack(write.value, write.encoding), bytes);
			if (match === undefined) continue;
			const seq = from + match.start;
			const link: Link = match.array ? [logId, seq, match.count] : [logId, seq];
			relinks.push({ write, value: Buffer.from(JSON.stringify(link)), encoding: match.array ? LINK.ITEMS : LINK.ITEM });
		}
	}
	return relinks;
}

/**
 * The parent's channel map with its inline json values that hold appended items (joined by commas)
 * as ValueLinks, or undefined if none does: LangGraph keeps a run's input, `{"messages":[<message>]}`,
 * in the `__start__` channel of the checkpoint the run starts from, and the message is the next
 * checkpoint's new item. Only the SQLite store writes value links.
 */
export function valueLinks(parentMap: ChannelMap, placed: readonly AppliedLogWrite[]): ChannelMap | undefined {
	const map: ChannelMap = { ...parentMap };
	let changed = false;
	for (const { logId, type, from, bytes } of placed) {
		if (logId === undefined || type !== 'json') continue;
		for (const [channel, entry] of Object.entries(map)) {
			if (!('v' in entry) || entry.v[0] !== 'json') continue;
			const text = Buffer.from(entry.v[1], 'utf8');
			const span = findSpan(text, bytes);
			if (span === undefined || span.end - span.offset < VALUE_LINK_MIN_BYTES) continue;
			const prefix = text.subarray(0, span.offset).toString('utf8');
			const suffix = text.subarray(span.end).toString('utf8');
			map[channel] = { l: [logId, from + span.start, span.count, prefix, suffix] };
			changed = true;
		}
	}
	return changed ? map : undefined;
}
