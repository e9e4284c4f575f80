// What a put writes, from its plan placed in the thread's logs: the checkpoint row, the new log
// items, and the parent's pending writes as links where the new items hold what they hold. Pure;
// the statement that writes it is put-statements.ts's.

import type { PlacedLog, PutPlan } from '../../checkpoint/put-plan.js';
import type { ChannelMap } from '../../checkpoint/channel-map.js';
import { encodeTogether } from '../../checkpoint/row-encoding.js';
import { writeLinks, type ParentWrite } from '../../checkpoint/write-links.js';
import type { CheckpointWrite, PutRider } from './put-statements.js';
import type { RunFence } from './store.js';

/** The thread a put writes to, its parent, and the run whose write it is (store.ts RunFence). */
export interface PutTarget {
	threadId: string;
	ns: string;
	parentId: string | undefined;
	fence: RunFence | undefined;
}

/** The thread a put writes to, by its key too. */
export type PutAt = Omit<PutTarget, 'fence'> & { threadKey: number };

/** A step's write held for the put (step-writes.ts), as the plan compares it with the put's items. */
export type RidingWrite = ParentWrite & { taskPath: string };

/** The parent's pending writes: `read` are stored, `riding` commit with the put. */
export interface ParentWrites {
	read: readonly ParentWrite[];
	riding: readonly RidingWrite[];
}

/**
 * The put's write: the parent's stored writes that the new items hold become links (write-links.ts),
 * and the riding writes are stored so from the start. `last` is the row as stored, what the next
 * put plans ahead from.
 */
export function checkpointWrite(
	plan: PutPlan,
	{ placed, map }: { placed: readonly PlacedLog[]; map: ChannelMap },
	at: PutAt,
	parentWrites: ParentWrites,
	rider: PutRider | undefined
) {
	const links = new Map(writeLinks([...parentWrites.read, ...parentWrites.riding], placed).map((link) => [link.write, link]));
	const row = { type: plan.type, ...encodeTogether({ checkpoint: plan.skeleton, channels: Buffer.from(JSON.stringify(map)) }) };
	const logLengths = placed.flatMap(({ logId, from, objects }) => (logId === undefined || objects.length === 0 ? [] : [{ logId, length: from + objects.length }]));
	const write: CheckpointWrite = {
		threadKey: at.threadKey,
		checkpointId: plan.id,
		parentId: at.parentId ?? null,
		metadata: Buffer.from(plan.metadata).toString('utf8'),
		...row,
		items: placed.flatMap(({ logId, from, items }) =>
			logId === undefined ? [] : items.map((item, k) => ({ log_id: logId, seq: from + k, ...item, value: asBuffer(item.value) }))
		),
		logLengths,
		relinks: parentWrites.read.flatMap((w) => {
			const link = links.get(w);
			return link ? [{ taskId: w.task_id, idx: w.idx, value: link.value, encoding: link.encoding }] : [];
		}),
		writes: parentWrites.riding.map((w) => {
			const link = links.get(w);
			const { task_id: taskId, idx, channel, type, taskPath } = w;
			return { taskId, idx, channel, type, taskPath, value: link?.value ?? asBuffer(w.value), encoding: link?.encoding ?? w.encoding };
		}),
		rider
	};
	return { write, last: { threadKey: at.threadKey, checkpointId: plan.id, row } };
}

/** pg sends a Buffer as bytea; the planner's items are Uint8Arrays (zlib's output, or the serde's). */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
