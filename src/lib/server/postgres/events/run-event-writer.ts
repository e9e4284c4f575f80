// Keeps a run's events in PostgreSQL as the run publishes them, in batches, announced by NOTIFY.

import type pg from 'pg';
import { isTerminal, type RunEvent } from '../../../protocol';
import type { EventLog } from '../../stream/event-log';
import { appendRunEvents, encodeEvent } from './run-event-rows.js';

export interface RunEventWriterOptions {
	runId: string;
	log: (message: string) => void;
	/**
	 * Least time between two flushes while the run goes on, and from the writer's start to its
	 * first (default 50 ms): at most 20 INSERTs a second per run however fast the model streams,
	 * where a write per token would be 20 to 100 a second from a real model and thousands from a
	 * fast local one; a remote reader sees each event at most this much later than a local one
	 * (about half of it on average). The terminal event is flushed at once, so a run that ends within
	 * the interval, as a short turn does, is kept in one row (issue 26: its first event went alone).
	 */
	flushIntervalMs?: number;
	/**
	 * Bytes of event JSON kept per run (RUN_EVENTS_MAX_BYTES, default 16 MiB). Past it the run's
	 * further events are not kept, but for its terminal event: a reader on another instance then
	 * skips from the last kept event to the end (the transcript is read from the thread anyway).
	 */
	maxBytes?: number;
	/** Waits before a failed flush is tried again, doubling from the first to the last (default 50 ms to 2 s). */
	retryDelayMs?: { first: number; last: number };
}

type Batch = { firstId: number; events: string[]; terminal: boolean };

/**
 * Subscribed to one run's EventLog from its first event: appends what the run publishes to
 * run_events, one row (and one INSERT, and one NOTIFY sophos_run_events with the run id) per
 * flush, with the log's own ids, so a reader may move between instances with Last-Event-ID.
 * A flush that fails is logged and tried again, the same batch first, so nothing is lost or
 * reordered while PostgreSQL is away; the run itself never waits for a flush. The writer stops
 * after the terminal event is kept, or when the run already has a terminal row (another instance
 * took it over: its owner may no longer add to it).
 */
export class RunEventWriter {
	private readonly pending: Batch[] = [];
	private inFlight: Batch | null = null;
	private timer: NodeJS.Timeout | undefined;
	/** The writer's start counts as a flush: its first waits the interval too. */
	private lastFlushAt = Date.now();
	private keptBytes = 0;
	private capped = false;
	private retryMs: number;
	private stopped = false;
	private readonly detach: () => void;
	private settle!: () => void;
	/** Settles once the terminal event is kept, or the writer stopped without it (see above). */
	readonly done: Promise<void>;

	private constructor(
		private readonly pool: pg.Pool,
		log: EventLog,
		private readonly options: RunEventWriterOptions
	) {
		this.retryMs = this.retryDelay.first;
		this.done = new Promise((resolve) => (this.settle = resolve));
		// A tap, not a reader: it does not count against MAX_STREAMS_PER_RUN.
		this.detach = log.tap((_frame, event, id) => this.add(event, id));
	}

	/** Attaches a writer to a run's log; it must not have published yet. */
	static attach(pool: pg.Pool, log: EventLog, options: RunEventWriterOptions): RunEventWriter {
		return new RunEventWriter(pool, log, options);
	}

	private get retryDelay() {
		return this.options.retryDelayMs ?? { first: 50, last: 2_000 };
	}

	private add(event: RunEvent, id: number): void {
		if (this.stopped) return;
		const terminal = isTerminal(event);
		const encoded = encodeEvent(event);
		const bytes = Buffer.byteLength(encoded);
		// Once one event is left out, so is every later one but the terminal: a reader never gets text with a hole in it.
		if (!terminal && (this.capped ||= this.keptBytes + bytes > (this.options.maxBytes ?? 16 * 1024 * 1024))) return;
		this.keptBytes += bytes;
		const last = this.pending.at(-1);
		if (last && last.firstId + last.events.length === id) {
			last.events.push(encoded);
			last.terminal = terminal;
		} else {
			this.pending.push({ firstId: id, events: [encoded], terminal });
		}
		if (terminal) this.detach();
		this.schedule();
	}

	/** A flush once none is under way: at once for a terminal event, else after the interval. */
	private schedule(): void {
		if (this.inFlight || this.pending.length === 0) return;
		const terminal = this.pending.at(-1)!.terminal;
		// A flush already set for the interval's end stays so: every token would set it again.
		if (this.timer && !terminal) return;
		const now = Date.now();
		const wait = terminal ? 0 : Math.max(0, this.lastFlushAt + (this.options.flushIntervalMs ?? 50) - now);
		clearTimeout(this.timer);
		this.timer = setTimeout(() => void this.flush(), wait);
		this.timer.unref();
	}

	private async flush(): Promise<void> {
		this.timer = undefined;
		const batch = (this.inFlight ??= this.pending.shift() ?? null);
		if (!batch) return;
		this.lastFlushAt = Date.now();
		let kept: boolean;
		try {
			kept = await appendRunEvents(this.pool, { runId: this.options.runId, firstId: batch.firstId, events: batch.events, terminal: batch.terminal });
		} catch (error) {
			this.options.log(
				`Run ${this.options.runId}: keeping events ${batch.firstId}–${batch.firstId + batch.events.length - 1} failed (${(error as Error).message}); trying again in ${this.retryMs} ms`
			);
			this.timer = setTimeout(() => void this.flush(), this.retryMs);
			this.timer.unref();
			this.retryMs = Math.min(this.retryMs * 2, this.retryDelay.last);
			return;
		}
		this.inFlight = null;
		this.retryMs = this.retryDelay.first;
		if (!kept) {
			this.options.log(`Run ${this.options.runId}: its stream was ended elsewhere (taken over); its events are no longer kept`);
			return this.stop();
		}
		if (batch.terminal) return this.stop();
		this.schedule();
	}

	private stop(): void {
		this.stopped = true;
		this.pending.length = 0;
		clearTimeout(this.timer);
		this.detach();
		this.settle();
	}
}
