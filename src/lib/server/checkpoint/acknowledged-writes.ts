// On PostgreSQL a run's put and pending writes each cost a round trip or two, and LangGraph (with
// durability "sync") waits for them between steps: the next step's setup waited on the network
// (issue 26). A run's writes are acknowledged as they are sent instead, and the run waits for them
// to commit only where something depends on them: before a tools step records a journal entry or
// an approval request or calls a tool (the calls are those of a stored step), before it announces a
// step's end (readers then read the thread), and before its outcome. A model call does not wait:
// the step before one is the run's input or a tools step, and a resumed run makes such a step
// again without effect (the input from the run's record, a tools step's calls from its journal),
// so a process killed at any point has stored every step anything acted on.

/** What the savers offer a run (both engines' savers implement it). */
export interface AcknowledgesWrites {
	/**
	 * Resolves when every write to the thread that this saver acknowledged before the call has
	 * committed; rejects with the first that failed, reported once (the run fails on it, as it would
	 * have on the write itself).
	 */
	committed(threadId: string): Promise<void>;
	/** Resolves when those writes have settled, committed or not, reporting nothing: a read of the thread then sees what they stored. */
	settled(threadId: string): Promise<void>;
}

type Thread = { pending: Set<Promise<void>>; failure?: { error: unknown } };

/** The writes a saver acknowledged before they committed, per thread. */
export class AcknowledgedWrites implements AcknowledgesWrites {
	private readonly threads = new Map<string, Thread>();

	/** Resolves at once, `write` tracked, when `early`; else once `write` has settled, as it does. */
	async acknowledge(threadId: string, early: boolean, write: Promise<unknown>): Promise<void> {
		if (early) this.track(threadId, write);
		else await write;
	}

	/** Tracks `write`, acknowledged to its caller before it settles. */
	track(threadId: string, write: Promise<unknown>): void {
		let thread = this.threads.get(threadId);
		if (!thread) this.threads.set(threadId, (thread = { pending: new Set() }));
		const tracked: Promise<void> = write.then(
			() => undefined,
			(error: unknown) => {
				thread.failure ??= { error };
			}
		);
		thread.pending.add(tracked);
		void tracked.then(() => {
			thread.pending.delete(tracked);
			this.tidy(threadId, thread);
		});
	}

	async committed(threadId: string): Promise<void> {
		const thread = this.threads.get(threadId);
		if (!thread) return;
		await Promise.all(thread.pending);
		const { failure } = thread;
		if (!failure) return;
		thread.failure = undefined;
		this.tidy(threadId, thread);
		throw failure.error;
	}

	async settled(threadId: string): Promise<void> {
		const thread = this.threads.get(threadId);
		if (thread) await Promise.all(thread.pending);
	}

	private tidy(threadId: string, thread: Thread): void {
		if (thread.pending.size === 0 && !thread.failure && this.threads.get(threadId) === thread) this.threads.delete(threadId);
	}
}
