// A run's stream read from PostgreSQL, on an instance that does not run it.

import type pg from 'pg';
import { isTerminal } from '../../../protocol';
import type { Subscriber } from '../../stream/event-log';
import type { FollowableLog } from '../../stream/sse-response';
import type { NotifyBus } from '../notify-bus';
import { frameOf, readRunEvents } from './run-event-rows.js';

/**
 * The run's kept events after a reader's Last-Event-ID, then each batch as its NOTIFY arrives,
 * until the terminal event: what liveEventResponse serves from a local EventLog, so the bytes are
 * the same (frames formed by formatSseFrame from the same events and ids).
 *
 * Takeover: a terminal row that names a successor (the run a takeover resumed) is not sent;
 * reading goes on with the successor, whose ids lie above this run's, so the reader sees one
 * stream, ended by the successor's terminal event, as a reader that reconnects to the instance
 * running the successor does. A terminal event is sent whatever its id: the instance that kept it
 * numbered it after the events it had, and the reader may hold ids the dead owner sent and never kept.
 *
 * After the bus reconnects, the rows are read again from the last id sent.
 */
export class RemoteRunLog implements FollowableLog {
	private runId: string;
	private cursor: number;
	private subscriber: Subscriber | null = null;
	/** Read before `follow`: sent as its replay. A terminal event is sent whatever its id. */
	private missed: { id: number; frame: string; terminal: boolean }[] = [];
	private ended = false;
	private reading: Promise<void> | null = null;
	private again = false;
	private unsubscribe: () => void = () => {};
	private attached = false;

	private constructor(
		private readonly parts: RemoteRunLogParts,
		private readonly countedAs: string,
		lastEventId: number
	) {
		this.runId = countedAs;
		this.cursor = lastEventId;
	}

	/** Listens for the run's batches, then reads what it kept after `lastEventId`; rejects if that read fails. */
	static async open(parts: RemoteRunLogParts, runId: string, lastEventId: number): Promise<RemoteRunLog> {
		const log = new RemoteRunLog(parts, runId, lastEventId);
		log.listen();
		try {
			await log.read();
		} catch (error) {
			log.unsubscribe();
			throw error;
		}
		return log;
	}

	get isEnded(): boolean {
		return this.ended;
	}

	/** Readers of this run attached on this instance (MAX_STREAMS_PER_RUN counts them per instance). */
	get followers(): number {
		return this.parts.counts.get(this.countedAs) ?? 0;
	}

	/** Once per log: the frames read at open after `lastEventId`, then every later one live. */
	follow(lastEventId: number, subscriber: Subscriber): { missed: string[]; detach: () => void } {
		if (this.attached) throw new Error('a remote run log is followed once');
		this.attached = true;
		const missed = this.missed.filter((m) => m.terminal || m.id > lastEventId).map((m) => m.frame);
		this.missed = [];
		if (this.ended) return { missed, detach: () => {} };
		this.subscriber = subscriber;
		this.parts.counts.set(this.countedAs, this.followers + 1);
		let detached = false;
		return {
			missed,
			detach: () => {
				if (detached) return;
				detached = true;
				this.subscriber = null;
				this.stop();
				const left = this.followers - 1;
				if (left > 0) this.parts.counts.set(this.countedAs, left);
				else this.parts.counts.delete(this.countedAs);
			}
		};
	}

	private listen(): void {
		this.unsubscribe();
		this.unsubscribe = this.parts.bus.subscribe('sophos_run_events', this.runId, {
			notified: () => this.readLogged(),
			reconnected: () => this.readLogged()
		});
	}

	private stop(): void {
		this.ended = true;
		this.unsubscribe();
	}

	private readLogged(): void {
		this.read().catch((error: Error) => this.parts.log(`Run ${this.runId}: reading its kept events failed (${error.message}); waiting for the next batch`));
	}

	/** One read at a time; a notification during a read asks for one more after it. */
	private read(): Promise<void> {
		if (this.reading) {
			this.again = true;
			return this.reading;
		}
		this.reading = (async () => {
			try {
				do {
					this.again = false;
					await this.readOnce();
				} while (this.again && !this.ended);
			} finally {
				this.reading = null;
			}
		})();
		return this.reading;
	}

	private async readOnce(): Promise<void> {
		while (!this.ended) {
			const rows = await readRunEvents(this.parts.pool, this.runId, this.cursor);
			if (this.ended) return;
			let successor: string | null = null;
			for (const row of rows) {
				for (const [index, event] of row.events.entries()) {
					const id = row.firstId + index;
					if (isTerminal(event) && row.terminal && index === row.events.length - 1) {
						if (row.next) successor = row.next.runId;
						else return this.deliverEnd(frameOf(event, id), event, id);
					} else if (id > this.cursor) {
						this.cursor = id;
						this.deliver(frameOf(event, id), event, id);
						// The reader may have gone (or been dropped as too slow) on that frame.
						if (this.ended) return;
					}
				}
			}
			if (successor === null) return;
			this.runId = successor;
			this.listen();
		}
	}

	private deliver(...[frame, event, id]: Parameters<Subscriber>): void {
		if (this.subscriber) this.subscriber(frame, event, id);
		else this.missed.push({ id, frame, terminal: isTerminal(event) });
	}

	private deliverEnd(...args: Parameters<Subscriber>): void {
		this.deliver(...args);
		this.stop();
	}

	/** Stops listening if no reader ever followed the log (a live response refused it). */
	releaseUnfollowed(): void {
		if (!this.attached) this.stop();
	}
}

/** What every remote log of an instance shares: the pool, the bus and the count of readers per run. */
export type RemoteRunLogParts = {
	pool: pg.Pool;
	bus: NotifyBus;
	counts: Map<string, number>;
	log: (message: string) => void;
};
