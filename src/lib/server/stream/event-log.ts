import { formatSseFrame } from './sse-frame';
import { isTerminal, type RunEvent } from '../../protocol';

/**
 * A run's numbered events, kept for replay to late subscribers (`Last-Event-ID`) and fanned out to
 * live ones. Bounded: past `limit` entries, runs of consecutive `token` (or `reasoning`) events are
 * merged into one entry that remembers where each original event ended, so a replay from any id
 * inside the merged run still starts exactly after that id: no text lost, none repeated.
 */

type Entry = {
	/** Id of the last event merged into this entry; the id its frame carries. */
	id: number;
	event: RunEvent;
	/** For merged text entries: ids and end offsets of the events merged, in order. */
	pieces?: { id: number; end: number }[];
	frame: string;
};

export type Subscriber = (frame: string, event: RunEvent, id: number) => void;

const MERGEABLE = new Set(['token', 'reasoning']);

export class EventLog {
	private entries: Entry[] = [];
	private nextId = 1;
	private readonly subscribers = new Set<Subscriber>();
	private ended = false;
	private compactAt: number;

	/**
	 * @param limit entries kept before text events are merged (SSE_BUFFER_EVENTS). Merging keeps all
	 * text, so memory is O(text + other events); when other events alone pass the limit, the next
	 * merge waits until the log has doubled, so merging stays linear overall.
	 */
	constructor(private readonly limit: number) {
		this.compactAt = limit;
	}

	get lastId(): number {
		return this.nextId - 1;
	}

	get size(): number {
		return this.entries.length;
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
		this.entries.push({ id, event, frame });
		if (this.entries.length > this.compactAt) this.compact();
		if (isTerminal(event)) this.ended = true;
		for (const subscriber of this.subscribers) {
			try {
				subscriber(frame, event, id);
			} catch {
				// A broken subscriber must not stop the run or the other subscribers.
				this.subscribers.delete(subscriber);
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
	follow(lastEventId: number, subscriber: Subscriber): { missed: string[]; detach: () => void } {
		const after = lastEventId > this.lastId ? 0 : lastEventId;
		const missed = this.replay(after);
		if (this.ended) return { missed, detach: () => {} };
		const live: Subscriber = (frame, event, id) => id > after && subscriber(frame, event, id);
		this.subscribers.add(live);
		return { missed, detach: () => this.subscribers.delete(live) };
	}

	private replay(lastEventId: number): string[] {
		const frames: string[] = [];
		for (const entry of this.entries) {
			if (entry.id <= lastEventId) continue;
			const inside = entry.pieces?.findIndex((p) => p.id === lastEventId) ?? -1;
			if (entry.pieces && inside >= 0) {
				const text = (entry.event.data as string).slice(entry.pieces[inside]!.end);
				frames.push(formatSseFrame(entry.event.event, text, entry.id));
			} else {
				frames.push(entry.frame);
			}
		}
		return frames;
	}

	private compact(): void {
		const merged: Entry[] = [];
		for (const entry of this.entries) {
			const prev = merged.at(-1);
			if (prev && MERGEABLE.has(entry.event.event) && prev.event.event === entry.event.event) {
				const prevText = prev.event.data as string;
				const pieces = prev.pieces ?? [{ id: prev.id, end: prevText.length }];
				const text = prevText + (entry.event.data as string);
				const morePieces = entry.pieces
					? entry.pieces.map((p) => ({ id: p.id, end: prevText.length + p.end }))
					: [{ id: entry.id, end: text.length }];
				const event = { event: entry.event.event, data: text } as RunEvent;
				merged[merged.length - 1] = {
					id: entry.id,
					event,
					pieces: [...pieces, ...morePieces],
					frame: formatSseFrame(event.event, text, entry.id)
				};
			} else {
				merged.push(entry);
			}
		}
		this.entries = merged;
		this.compactAt = Math.max(this.limit, merged.length * 2);
	}
}
