// A step's pending writes on their way to the database beside the puts (issue 26): held for the
// put that ends the step, sent on their own, and in flight.
//
// Held: LangGraph calls putWrites as a task ends and put as its step ends, within one turn of the
// event loop, so the put can carry the writes in its own write statement: a step's end costs one
// round trip where it cost three (the writes; the put's lock and read; the put's write), and a
// message the writes hold is stored as a link to the item the put appends from the start. Writes
// to a checkpoint whose put is in flight wait for the turn after it (the put chained behind it
// comes then). Writes no put takes by the end of that turn (a graph run with durability "async"
// puts later) are sent on their own.

import type { ParentWrite } from '../../checkpoint/write-links.js';
import type { RidingWrite } from './put-write.js';
import type { NewWrite, RunFence } from './store.js';

/** A putWrites call held back: its writes, and the promise its caller awaits, to settle. */
export interface HeldCall {
	threadId: string;
	ns: string;
	checkpointId: string;
	taskId: string;
	taskPath: string;
	/** Serialised as the call was held. */
	rows: Promise<NewWrite[]>;
	fence: RunFence | undefined;
	resolve: () => void;
	reject: (error: unknown) => void;
}

/** One saver's held calls, keyed by thread and namespace (early-plans.ts threadKeyOf). */
export class HeldWrites {
	private readonly held = new Map<string, HeldCall[]>();

	/**
	 * `sendAlone` sends a call on its own and settles it; its promise ends when the call is settled.
	 * `putting`: the saver's puts under way.
	 */
	constructor(
		private readonly sendAlone: (key: string, call: HeldCall) => Promise<void>,
		private readonly putting: PutsUnderWay
	) {}

	/**
	 * Holds `call` until a put to `key` takes it, or this turn of the event loop ends. Writes to a
	 * checkpoint whose own put is still under way are held until the turn after that put settles:
	 * LangGraph chains a step's put behind the put before it, so a task of the step after the input
	 * checkpoint ends while that checkpoint's put is in flight, and its step's put comes only once
	 * that put is done.
	 */
	hold(key: string, call: HeldCall): void {
		const calls = this.held.get(key);
		if (calls?.[0]!.checkpointId === call.checkpointId) {
			calls.push(call);
			return;
		}
		void this.release(key);
		const fresh = [call];
		this.held.set(key, fresh);
		const releaseIfHeld = () => {
			if (this.held.get(key) === fresh) void this.release(key);
		};
		const parentPut = this.putting.of(key, call.checkpointId);
		const afterThisTurn = () => setImmediate(releaseIfHeld);
		if (parentPut) void parentPut.then(afterThisTurn, afterThisTurn);
		else afterThisTurn();
	}

	/**
	 * The calls held for `key`, now the put's to carry, if they write to its parent for the same
	 * run; any others are sent on their own.
	 */
	take(key: string, parentId: string | undefined, fence: RunFence | undefined): HeldCall[] {
		const calls = this.held.get(key) ?? [];
		this.held.delete(key);
		if (calls.every((call) => call.checkpointId === parentId && call.fence?.runId === fence?.runId && call.fence?.owner === fence?.owner)) return calls;
		for (const call of calls) void this.sendAlone(key, call);
		return [];
	}

	/** Sends the calls held for the keys `which` picks now, and waits until they are settled (a thread about to be deleted). */
	async releaseWhere(which: (key: string) => boolean): Promise<void> {
		await Promise.all([...this.held.keys()].filter(which).map((key) => this.release(key)));
	}

	private release(key: string): Promise<void[]> {
		const calls = this.held.get(key) ?? [];
		this.held.delete(key);
		return Promise.all(calls.map((call) => this.sendAlone(key, call)));
	}
}

/** One saver's put under way per thread and namespace, if any: writes to its checkpoint are held until it settles. */
export class PutsUnderWay {
	private readonly puts = new Map<string, { checkpointId: string; done: Promise<unknown> }>();

	/** `done`, the put of `checkpointId` to `key`, known under way until it settles. */
	track<T>(key: string, checkpointId: string, done: Promise<T>): Promise<T> {
		const put = { checkpointId, done };
		this.puts.set(key, put);
		return done.finally(() => {
			if (this.puts.get(key) === put) this.puts.delete(key);
		});
	}

	/** The put of `checkpointId` to `key` under way, settling when it has. */
	of(key: string, checkpointId: string): Promise<unknown> | undefined {
		const put = this.puts.get(key);
		return put?.checkpointId === checkpointId ? put.done : undefined;
	}
}

/** The writes of the calls a put takes, once serialised. */
export async function ridingWrites(calls: readonly HeldCall[]): Promise<RidingWrite[]> {
	const rows = await Promise.all(calls.map((call) => call.rows));
	return calls.flatMap((call, i) => rows[i]!.map((row) => ({ ...row, task_id: call.taskId, taskPath: call.taskPath })));
}

/** Checkpoints whose sent writes are kept for a put on them: a few per running run are all that is asked of it. */
const SENT_KEPT = 1_000;

/**
 * Regular writes (never replaced) this saver sent on their own and saw commit, by thread and
 * checkpoint: a put on that checkpoint sent in one flight reads nothing, and links these. Writes
 * another saver stored there stay as they are, stored whole (only the space of a link is lost).
 */
export class SentWrites {
	private readonly sent = new Map<string, ParentWrite[]>();

	add(key: string, checkpointId: string, writes: readonly ParentWrite[]): void {
		const at = JSON.stringify([key, checkpointId]);
		const known = this.sent.get(at);
		if (known) known.push(...writes);
		else this.sent.set(at, [...writes]);
		if (this.sent.size > SENT_KEPT) this.sent.delete(this.sent.keys().next().value!);
	}

	/** The writes sent to `checkpointId`, forgotten here: a put on it is under way. */
	take(key: string, checkpointId: string | undefined): ParentWrite[] {
		if (checkpointId === undefined) return [];
		const at = JSON.stringify([key, checkpointId]);
		const known = this.sent.get(at) ?? [];
		this.sent.delete(at);
		return known;
	}

	forget(isOfThread: (key: string) => boolean): void {
		for (const at of this.sent.keys()) if (isOfThread((JSON.parse(at) as [string, string])[0])) this.sent.delete(at);
	}
}

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
