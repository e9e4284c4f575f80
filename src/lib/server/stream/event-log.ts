import { formatSseFrame } from './sse-frame';
import { isTerminal, type RunEvent } from '../../protocol';
import { newLogWork, TextStretch, type LogWork } from './text-stretch';

/**
 * A run's numbered events, kept for replay to late subscribers (`Last-Event-ID`) and fanned out to
 * live ones. Bounded: once the log passes `limit` entries, consecutive `token` (or `reasoning`)
 * events are kept merged, one entry per stretch, that remembers where each original event ended, so
 * a replay from any id inside a stretch still starts exactly after that id: no text lost, none repeated.
 */

/**
 * Entries the merge of the log's first `limit` entries moves per publish. More than the one entry a
 * publish can add, so the merge ends, after about limit / 7 publishes; few, so no publish waits on
 * it (one pass over 10,000 entries at once was a 10-25 ms publish, mostly code not yet compiled).
 */
const MERGE_STEPS = 8;

/** One event as published, with the frame every subscriber was sent. */
type Published = { id: number; event: RunEvent; frame: string };
type Entry = Published | TextStretch;
type TextEvent = Extract<RunEvent, { event: 'token' | 'reasoning' }>;

const isText = (e: RunEvent): e is TextEvent => e.event === 'token' || e.event === 'reasoning';
const lastIdOf = (entry: Entry) => (entry instanceof TextStretch ? entry.lastId : entry.id);

export type Subscriber = (frame: string, event: RunEvent, id: number) => void;

export class EventLog {
	/** In id order. While `merge` is set, [written, read) is what the merge has already moved. */
	private readonly entries: Entry[] = [];
	private merge: { read: number; written: number } | null = null;
	private merging = false;
	private nextId: number;
	private readonly firstId: number;
	private readonly subscribers = new Set<Subscriber>();
	/** What the run's own machinery attaches (the durable writer on PostgreSQL): not readers, not counted against MAX_STREAMS_PER_RUN. */
	private readonly taps = new Set<Subscriber>();
	private ended = false;

	/**
	 * @param limit entries kept as published (SSE_BUFFER_EVENTS). Past it, each text event is
	 * appended to the stretch at the log's end, and the entries kept so far are merged a few per
	 * publish, so a publish is O(1) however long the answer. Entries stay within `limit` plus one per
	 * non-text event and per stretch; memory is their frames, the text, and 4 bytes per merged event.
	 * @param work counts the log's work (see LogWork); tests read it, the service never does.
	 * @param firstId the id of the first event (default 1). A run that carries on a stream another
	 * run left, as a takeover's resumed run does, starts above every id that run had, so a reader's
	 * Last-Event-ID from the earlier run replays the whole of this one and none of it is skipped.
	 */
	constructor(
		private readonly limit: number,
		private readonly work: LogWork = newLogWork(),
		firstId = 1
	) {
		if (!Number.isSafeInteger(firstId) || firstId < 1) throw new Error(`Invalid first event id: ${firstId}`);
		this.nextId = firstId;
		this.firstId = firstId;
	}

	get lastId(): number {
		return this.nextId - 1;
	}

	get size(): number {
		return this.merge ? this.merge.written + this.entries.length - this.merge.read : this.entries.length;
	}

	get isEnded(): boolean {
		return this.ended;
	}

	/** Readers following the log live. */
	get followers(): number {
		return this.subscribers.size;
	}

	publish(event: RunEvent): number {
		if (this.ended) throw new Error('The run has already published its terminal event');
		const id = this.nextId++;
		const frame = formatSseFrame(event.event, event.data, id);
		if (this.merging && isText(event)) this.appendText(id, event);
		else this.entries.push({ id, event, frame });
		if (!this.merging && this.entries.length > this.limit) {
			this.merging = true;
			this.merge = { read: 0, written: 0 };
		}
		if (this.merge) this.mergeSome(this.merge);
		if (isTerminal(event)) this.ended = true;
		for (const set of [this.taps, this.subscribers]) {
			for (const subscriber of set) {
				try {
					subscriber(frame, event, id);
				} catch {
					// A broken subscriber must not stop the run or the other subscribers.
					set.delete(subscriber);
				}
			}
		}
		return id;
	}

	/**
	 * Attaches a reader that has seen everything up to `lastEventId`: returns the frames it missed and
	 * delivers later ones live, in one synchronous step, so nothing falls between replay and live.
	 * An id above any this run has published cannot be one of its own (ids only grow): it comes from
	 * an earlier run, so the whole log is replayed.
	 */
	/**
	 * Delivers every event from the next one on, for the run's own use rather than a reader's;
	 * throws once the run has published, since what came before would be missed.
	 */
	tap(subscriber: Subscriber): () => void {
		if (this.nextId !== this.firstId) throw new Error('a tap must be attached before the run publishes');
		this.taps.add(subscriber);
		return () => this.taps.delete(subscriber);
	}

	follow(lastEventId: number, subscriber: Subscriber): { missed: string[]; detach: () => void } {
		const after = lastEventId > this.lastId ? 0 : lastEventId;
		const missed = this.replay(after);
		if (this.ended) return { missed, detach: () => {} };
		const live: Subscriber = (frame, event, id) => id > after && subscriber(frame, event, id);
		this.subscribers.add(live);
		return { missed, detach: () => this.subscribers.delete(live) };
	}

	private replay(after: number): string[] {
		// Entries are in id order: find the first that holds an event after `after`.
		let low = 0;
		let high = this.size;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (lastIdOf(this.at(mid)) > after) high = mid;
			else low = mid + 1;
		}
		const frames: string[] = [];
		for (let i = low, size = this.size; i < size; i++) {
			const entry = this.at(i);
			frames.push(entry instanceof TextStretch ? entry.frameAfter(after) : entry.frame);
		}
		return frames;
	}

	/** The entry at `index` in id order, skipping what a merge under way has moved. */
	private at(index: number): Entry {
		const m = this.merge;
		return this.entries[m && index >= m.written ? index - m.written + m.read : index]!;
	}

	/** Every text event at the end of the log is the next id of the stretch there, if of its kind. */
	private appendText(id: number, event: TextEvent): void {
		const last = this.entries.at(-1);
		if (last instanceof TextStretch && last.event === event.event) last.append(event.data);
		else this.entries.push(this.newStretch(id, event));
	}

	private newStretch(id: number, event: TextEvent): TextStretch {
		const stretch = new TextStretch(event.event, id, this.work);
		stretch.append(event.data);
		return stretch;
	}

	/**
	 * Moves up to MERGE_STEPS entries from `read` to `written`, text events as published joining the
	 * stretch before them. Stretches made since the merge began are moved whole, so two stretches of
	 * one kind may end up side by side: one entry more, and nothing is ever copied twice.
	 */
	private mergeSome(merge: { read: number; written: number }): void {
		for (let step = 0; step < MERGE_STEPS && merge.read < this.entries.length; step++) {
			const entry = this.entries[merge.read++]!;
			this.work.entriesVisited++;
			const before = merge.written > 0 ? this.entries[merge.written - 1] : undefined;
			if (entry instanceof TextStretch || !isText(entry.event)) this.entries[merge.written++] = entry;
			else if (before instanceof TextStretch && before.event === entry.event.event) before.append(entry.event.data);
			else this.entries[merge.written++] = this.newStretch(entry.id, entry.event);
		}
		if (merge.read < this.entries.length) return;
		this.entries.length = merge.written;
		this.merge = null;
	}
}
