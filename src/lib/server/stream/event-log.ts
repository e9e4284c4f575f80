import { formatSseFrame } from './sse-frame';
import { isTerminal, type RunEvent } from './run-events';

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

export type Subscriber = (frame: string, event: RunEvent) => void;

const MERGEABLE = new Set(['token', 'reasoning']);

export class EventLog {
	private entries: Entry[] = [];
	private nextId = 1;
	private readonly subscribers = new Set<Subscriber>();
	private ended = false;

	/** @param limit entries kept before merging; merging keeps all text, so memory is O(text + traces). */
	constructor(private readonly limit: number) {}

	get lastId(): number {
		return this.nextId - 1;
	}

	get size(): number {
		return this.entries.length;
	}

	get isEnded(): boolean {
		return this.ended;
	}

	publish(event: RunEvent): number {
		if (this.ended) throw new Error('The run has already published its terminal event');
		const id = this.nextId++;
		const frame = formatSseFrame(event.event, event.data, id);
		this.entries.push({ id, event, frame });
		if (this.entries.length > this.limit) this.compact();
		if (isTerminal(event)) this.ended = true;
		for (const subscriber of this.subscribers) {
			try {
				subscriber(frame, event);
			} catch {
				// A broken subscriber must not stop the run or the other subscribers.
				this.subscribers.delete(subscriber);
			}
		}
		return id;
	}

	/** Frames after `lastEventId`, in order; synchronous, so nothing can fall between it and `subscribe`. */
	replay(lastEventId: number): string[] {
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

	subscribe(subscriber: Subscriber): () => void {
		this.subscribers.add(subscriber);
		return () => this.subscribers.delete(subscriber);
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
	}
}
