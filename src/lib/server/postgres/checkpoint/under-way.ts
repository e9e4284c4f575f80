// What a saver has sent to a thread and not yet seen commit: the step's pending writes, which the
// next put links to (so a step's messages are stored once), and its last put, which a run was told
// of before it committed (checkpoint/acknowledged-writes.ts).

import type { ParentWrite } from '../../checkpoint/write-links.js';

/** A putWrites call sent: the writes it stored (a regular write already there is kept, not stored). */
export type WritesInFlight = { checkpointId: string; written: Promise<ParentWrite[]> };

/** The writes to `parentId` of the calls in flight as a put began, once they have committed. */
export async function landed(inFlight: readonly WritesInFlight[], parentId: string): Promise<ParentWrite[]> {
	const settled = await Promise.allSettled(inFlight.filter((w) => w.checkpointId === parentId).map((w) => w.written));
	return settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
}

/** The parent's writes as the put read them, and those that committed after its read. */
export function withLanded(read: readonly ParentWrite[], landedWrites: readonly ParentWrite[]): ParentWrite[] {
	const seen = new Set(read.map((w) => `${w.task_id}\u0000${w.idx}`));
	return [...read, ...landedWrites.filter((w) => !seen.has(`${w.task_id}\u0000${w.idx}`))];
}

/**
 * Each thread's last put, until it commits. A put on top of it (its parent is that put's
 * checkpoint) begins once it has committed, and fails with it: the parent it plans from is not
 * there if it rolled back. Begun earlier, it could take the thread's lock first and wait for its
 * parent while its parent waits for the lock.
 */
export class PutsUnderWay {
	private readonly puts = new Map<string, { checkpointId: string; stored: Promise<void> }>();

	/** `store` run after the put to `key` it goes on from, if that one is under way; settles as the put does. */
	begin(key: string, checkpointId: string, parentId: string | undefined, store: () => Promise<void>): Promise<void> {
		const underWay = this.puts.get(key);
		const onTopOf = underWay && underWay.checkpointId === parentId ? underWay.stored : Promise.resolve();
		const mine = { checkpointId, stored: onTopOf.then(store) };
		this.puts.set(key, mine);
		return mine.stored.finally(() => {
			if (this.puts.get(key) === mine) this.puts.delete(key);
		});
	}
}
