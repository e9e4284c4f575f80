// Where each channel value of a checkpoint lives. Every checkpoint row carries a ChannelMap (JSON)
// so it can be read on its own: a value is either stored in the row, referenced in the one row that
// stores it, or (arrays) a list of log segments. References always point straight at the storing
// row, never at another reference, so reading a checkpoint touches at most one extra row per channel.
//
// Pure functions only; the map is plain JSON so retention can rewrite it without the serialiser.

import type { ChannelVersions } from '@langchain/langgraph-checkpoint';
import type { Segment } from './segments.js';

/** A value serialised by the saver's serde: its type and its bytes as text (UTF-8 for json). */
export type InlineValue = readonly [type: string, text: string];

/**
 * A json value whose text is log items (`count` of them from `seq`, joined by commas) between
 * `prefix` and `suffix`, e.g. an input `{"messages":[<item>]}` (see write-links.ts).
 */
export type ValueLink = readonly [logId: number, seq: number, count: number, prefix: string, suffix: string];

export type ChannelEntry =
	/** Stored in this row. */
	| { v: InlineValue }
	/** Stored in this row, as a link to the log items that hold most of its bytes. */
	| { l: ValueLink }
	/** Stored in the row of checkpoint `r` (same thread and namespace). */
	| { r: string }
	/** An array held in item logs. */
	| { s: Segment[] };

export type ChannelMap = Record<string, ChannelEntry>;

/** Inherited values at most this long are copied rather than referenced: a reference costs ~50 bytes. */
export const COPY_INLINE_MAX = 64;

export function toInline(type: string, bytes: Uint8Array): InlineValue {
	return type === 'json'
		? [type, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')]
		: [type, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')];
}

export function fromInline([type, text]: InlineValue): Uint8Array {
	return type === 'json' ? Buffer.from(text, 'utf8') : Buffer.from(text, 'base64');
}

/** The entry a child gets for a channel whose value it shares with its parent. */
export function inheritEntry(parentEntry: ChannelEntry, parentId: string): ChannelEntry {
	if ('s' in parentEntry) return { s: parentEntry.s.map(([log, length]) => [log, length] as const) };
	if ('r' in parentEntry) return { r: parentEntry.r };
	if ('l' in parentEntry) return { l: parentEntry.l };
	return parentEntry.v[1].length <= COPY_INLINE_MAX ? { v: parentEntry.v } : { r: parentId };
}

export interface ParentInfo {
	id: string;
	map: ChannelMap;
	versions: ChannelVersions;
}

export interface ChannelPlan {
	/** Channels whose value is the parent's, with the entry to store. */
	inherited: ChannelMap;
	/** Channels whose value must be stored from the checkpoint. */
	changed: string[];
	/**
	 * Channels LangGraph reports as unchanged (absent from newVersions) that the parent does not
	 * hold at the same version, e.g. `updateState(..., "__copy__")`, whose parent is the copied
	 * checkpoint's parent. The saver stores them if that version is stored anywhere in the thread;
	 * otherwise they are dropped, as a version-keyed saver (Postgres) would.
	 */
	unresolved: string[];
}

/**
 * Decide, per channel present in the checkpoint, whether to inherit the parent's entry or store
 * the value. LangGraph bumps a channel's version whenever its value changes, so a channel with the
 * same version as in the parent has the parent's value.
 */
export function planChannels(
	channels: readonly string[],
	versions: ChannelVersions,
	newVersions: ChannelVersions,
	parent: ParentInfo | undefined
): ChannelPlan {
	const plan: ChannelPlan = { inherited: {}, changed: [], unresolved: [] };
	for (const channel of channels) {
		if (Object.prototype.hasOwnProperty.call(newVersions, channel)) {
			plan.changed.push(channel);
			continue;
		}
		const parentEntry = parent?.map[channel];
		if (parent && parentEntry && parent.versions[channel] === versions[channel]) {
			plan.inherited[channel] = inheritEntry(parentEntry, parent.id);
		} else if (versions[channel] === undefined) {
			// Unversioned (LangGraph's `__pregel_tasks`): nothing could find it by version, so keep it.
			plan.changed.push(channel);
		} else {
			plan.unresolved.push(channel);
		}
	}
	return plan;
}
