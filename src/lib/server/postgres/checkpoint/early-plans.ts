// A put planned from the saver's last put of its thread (issue 26), used only if the thread is
// still as that put left it: checked by the read under the put's lock while the plan is made, or,
// for a put sent whole in one flight, by its guarded write (put-statements.ts PutGuard); otherwise
// the put plans from its read.

import type { PutInput, PutPlan, PutPlanner, SkeletonRow } from '../../checkpoint/put-plan.js';
import type { LockedThread } from './put-statements.js';

/** A thread's last put by this saver: its checkpoint's row as stored, and every log's length after it. */
export type LastPut = { threadKey: number; checkpointId: string; row: SkeletonRow & { channels: Uint8Array }; logLengths: ReadonlyMap<number, number> };

/** A put planned before its lock, and the log lengths the plan was given. */
export type Guess = { plan: PutPlan; asked: ReadonlyMap<number, number | undefined> };

/** A put being planned early: from which last put, and the plan (none where planning would read). */
export type EarlyPlan = { last: LastPut; guessed: Promise<Guess | undefined> };

/** Threads whose last put is kept for the next: a few per running run are all that is asked of it. */
const LAST_PUTS_KEPT = 1_000;

/** One saver's threads' last puts, keyed by thread and namespace (threadKeyOf). */
export class EarlyPlans {
	private readonly lastPuts = new Map<string, LastPut>();

	constructor(private readonly planner: PutPlanner) {}

	/**
	 * Begins planning the put to `key` whose parent is `parentId`, if it goes on from the thread's
	 * last put. That put is taken, so one that fails leaves none behind. Unless `now` (the put waits
	 * for its plan before it sends anything), planning begins after this turn of the event loop, so
	 * the transaction's first statements leave first.
	 */
	begin(key: string, parentId: string | undefined, input: Omit<PutInput, 'parent'>, now: boolean): EarlyPlan | undefined {
		const last = this.lastPuts.get(key);
		this.lastPuts.delete(key);
		if (!last || parentId !== last.checkpointId) return undefined;
		return { last, guessed: now ? this.guess(input, last) : afterThisTurn(() => this.guess(input, last)) };
	}

	/** The early plan, if the thread as read under the put's lock is as the plan took it. */
	async usable(early: EarlyPlan | undefined, locked: LockedThread): Promise<PutPlan | undefined> {
		const guess = await early?.guessed;
		return guess && stillHolds(guess, early!.last, locked) ? guess.plan : undefined;
	}

	remember(key: string, last: LastPut): void {
		this.lastPuts.set(key, last);
		// Oldest first (a Map keeps insertion order): a thread put again was taken by begin() and is set anew.
		if (this.lastPuts.size > LAST_PUTS_KEPT) this.lastPuts.delete(this.lastPuts.keys().next().value!);
	}

	forgetThread(threadId: string): void {
		for (const key of this.lastPuts.keys()) if (isKeyOfThread(key, threadId)) this.lastPuts.delete(key);
	}

	/**
	 * The put's plan from the last put's stored parent and log lengths, or undefined where planning
	 * would read the database (items the cache lacks, a version scan) or fails: the put plans from
	 * its read under the lock then, and meets any failure there.
	 */
	private async guess(input: Omit<PutInput, 'parent'>, last: LastPut): Promise<Guess | undefined> {
		const asked = new Map<number, number | undefined>();
		const unread = () => Promise.reject(new Error('an early plan does not read'));
		try {
			const parent = await this.planner.parent(last.checkpointId, last.row);
			const plan = await this.planner.plan(
				{ ...input, parent },
				{
					logLength: (logId) => {
						const length = last.logLengths.get(logId);
						asked.set(logId, length);
						return length;
					},
					items: unread,
					threadRows: unread
				}
			);
			return { plan, asked };
		} catch {
			return undefined;
		}
	}
}

/** Whether the thread, read under the put's lock, is as `guess` took it from `last`: parent stored alike, every log asked about as long. */
function stillHolds(guess: Guess, last: LastPut, locked: LockedThread): boolean {
	const stored = locked.parent;
	if (!stored || stored.type !== last.row.type || stored.encoding !== last.row.encoding) return false;
	if (!Buffer.from(stored.checkpoint).equals(last.row.checkpoint) || !Buffer.from(stored.channels).equals(last.row.channels)) return false;
	for (const [logId, length] of guess.asked) if (locked.logLengths.get(logId) !== length) return false;
	return true;
}

/** `work` run once the event loop has carried out what this turn of it queued (a connection's first statements). */
const afterThisTurn = <T>(work: () => Promise<T>): Promise<T> => new Promise<void>((resolve) => setImmediate(resolve)).then(work);

/** A saver's key for a thread's namespace. */
export const threadKeyOf = (threadId: string, ns: string) => JSON.stringify([threadId, ns]);

export const isKeyOfThread = (key: string, threadId: string) => (JSON.parse(key) as [string, string])[0] === threadId;
