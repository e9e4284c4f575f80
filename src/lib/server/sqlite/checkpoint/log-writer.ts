// Writes a changed array channel value as an extension of its parent's item logs.
//
// prepare() (async: comparing and serialising) runs before the put's transaction, apply() (sync)
// inside it, remember() after commit. The saver runs puts one at a time, so the tip read in
// prepare() is still the tip in apply(); apply() re-checks it against other connections.

import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { ItemCache } from '../../checkpoint/item-cache.js';
import {
	itemsToWrite,
	needsNewLog,
	planLogWrite,
	segmentsAfter,
	totalLength,
	type LogPlan,
	type Segment
} from '../../checkpoint/segments.js';
import { pack, unpack } from '../../checkpoint/blob.js';
import type { CheckpointStore, StoredValue } from './store.js';
import type { AppliedLogWrite } from '../../checkpoint/segments.js';

export interface PreparedLogWrite {
	channel: string;
	value: unknown[];
	parentSegments?: readonly Segment[];
	plan: LogPlan;
	/** Serialised items to write: value[start], value[start + 1], … */
	items: StoredValue[];
	/** The same items before encoding, to link pending writes to (write-links.ts). */
	bytes: Uint8Array[];
	start: number;
}

export class LogWriter {
	constructor(
		private readonly store: CheckpointStore,
		private readonly cache: ItemCache,
		private readonly serde: SerializerProtocol,
		private readonly maxSegments: number
	) {}

	async prepare(channel: string, value: unknown[], parentSegments?: readonly Segment[]): Promise<PreparedLogWrite> {
		const extendsParent = parentSegments !== undefined && (await this.extendsParent(parentSegments, value));
		const last = parentSegments?.[parentSegments.length - 1];
		const plan = planLogWrite({
			parentSegments,
			extendsParent,
			childLength: value.length,
			tipLength: last === undefined ? undefined : this.store.logLength(last[0]),
			maxSegments: this.maxSegments
		});
		const { start, end } = itemsToWrite(plan, parentSegments, value.length);
		const serialised = await Promise.all(value.slice(start, end).map((item) => this.serde.dumpsTyped(item)));
		const items = serialised.map(([type, bytes]) => ({ type, ...pack(bytes) }));
		return { channel, value, parentSegments, plan, items, bytes: serialised.map(([, bytes]) => bytes), start };
	}

	apply(threadId: string, ns: string, write: PreparedLogWrite): AppliedLogWrite {
		const { channel, value, parentSegments, plan, items, bytes, start } = write;
		const written = applyLogPlan(this.store, threadId, ns, plan, parentSegments, value.length, items);
		// One serde type for all items, or none to link to (write-links.ts compares bytes and type).
		const type = items.every((item) => item.type === items[0]?.type) ? items[0]?.type : undefined;
		return { channel, ...written, objects: value.slice(start, start + items.length), bytes, type };
	}

	remember(applied: AppliedLogWrite): void {
		if (applied.logId !== undefined) this.cache.append(applied.logId, applied.from, applied.objects);
	}

	/**
	 * Whether the parent's items are a prefix of `child`. Items the cache holds are compared by
	 * identity (LangGraph passes the same message objects from step to step); any other item by
	 * its serialised bytes, so an in-place replacement (same id, new content) is caught.
	 */
	private async extendsParent(parentSegments: readonly Segment[], child: readonly unknown[]): Promise<boolean> {
		if (child.length < totalLength(parentSegments)) return false;
		let position = 0;
		for (const [logId, length] of parentSegments) {
			const cached = this.cache.peek(logId);
			for (let seq = 0; seq < length; seq += 1, position += 1) {
				if (cached !== undefined && seq < cached.length && cached[seq] === child[position]) continue;
				if (!(await this.sameAsStored(logId, seq, child[position]))) return false;
			}
		}
		return true;
	}

	private async sameAsStored(logId: number, seq: number, value: unknown): Promise<boolean> {
		const stored = this.store.item(logId, seq);
		if (stored === undefined) return false;
		const [type, bytes] = await this.serde.dumpsTyped(value);
		return type === stored.type && Buffer.from(bytes).equals(unpack(stored.value, stored.encoding));
	}
}

/**
 * Carry out a plan inside the caller's transaction: append to the parent's last log or create a
 * log, and return the child's segments. Shared with the stock import.
 */
export function applyLogPlan(
	store: CheckpointStore,
	threadId: string,
	ns: string,
	plan: LogPlan,
	parentSegments: readonly Segment[] | undefined,
	childLength: number,
	items: readonly StoredValue[]
): { segments: Segment[]; logId?: number; from: number } {
	let logId: number | undefined;
	let from = 0;
	if (plan.kind === 'append') {
		// Another connection may have appended since the plan was made; never overwrite its items.
		if (store.logLength(plan.logId) !== plan.from) {
			throw new Error(`checkpoint store: log ${plan.logId} of thread ${threadId} was appended to concurrently`);
		}
		logId = plan.logId;
		from = plan.from;
	} else if (needsNewLog(plan, childLength)) {
		logId = store.createLog(threadId, ns);
	}
	if (logId !== undefined) store.appendItems(logId, from, items);
	return { segments: segmentsAfter(plan, parentSegments, childLength, logId), logId, from };
}
