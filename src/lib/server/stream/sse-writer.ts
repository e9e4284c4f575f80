// Internal to sse-response: one reader's side of a live SSE response.

const encoder = new TextEncoder();

/** The reader left more live frames unread than it may; it can reconnect with Last-Event-ID. */
export class SlowReaderError extends Error {
	override name = 'SlowReaderError';
	constructor(
		readonly unreadBytes: number,
		readonly limitBytes: number
	) {
		super(`${unreadBytes} bytes of live events unread, over the limit of ${limitBytes}`);
	}
}

/**
 * Writes frames into a response stream made with `queuingStrategy(limitBytes)`.
 *
 * Batching: frames written in one turn of the event loop (typically the tokens of one network read
 * from the model) go out at its end as one chunk, so one socket write instead of one per token;
 * every frame keeps its own id.
 *
 * Slow readers: the stream's queue is what a reader has not read yet (past the socket's own small
 * buffer). A reader more than `limitBytes` of live frames behind is dropped (`onDrop`): its queue is
 * discarded and its connection cut, and it can come back with Last-Event-ID, which the log serves
 * from memory it holds anyway. Without a bound, each stalled reader (a suspended laptop, a stuck
 * proxy) kept a copy of the rest of the answer until the run ended. The replay a reader asked for
 * does not count: it is read before any live frame, so only live bytes queued behind it are.
 */
export class SseWriter {
	private pending: string[] = [];
	private scheduled: NodeJS.Immediate | undefined;
	private enqueuedBytes = 0;
	private replayBytes = 0;

	constructor(
		private readonly controller: ReadableStreamDefaultController<Uint8Array>,
		private readonly limitBytes: number,
		private readonly onDrop: (error: SlowReaderError) => void
	) {}

	/** The stream's queue measured in bytes, with `limitBytes` as its high-water mark. */
	static queuingStrategy(limitBytes: number): QueuingStrategy<Uint8Array> {
		return { highWaterMark: limitBytes, size: (chunk) => chunk.byteLength };
	}

	/** Written at once, and not counted against the reader: whatever it missed, it may catch up. */
	writeReplay(text: string): void {
		this.replayBytes += this.enqueue(text);
	}

	/** Queued until the end of this turn of the event loop. */
	write(frame: string): void {
		this.pending.push(frame);
		this.scheduled ??= setImmediate(() => this.flush());
	}

	/** Writes what is queued, then ends the stream; a stalled reader keeps at most its limit queued. */
	close(): void {
		this.cancelFlush();
		if (this.pending.length) this.enqueue(this.pending.join(''));
		this.controller.close();
	}

	/** Forgets what is queued and ends the stream: the reader went away. */
	discard(): void {
		this.cancelFlush();
		this.pending = [];
		try {
			this.controller.close();
		} catch {
			// Already cancelled by the reader.
		}
	}

	private flush(): void {
		this.scheduled = undefined;
		this.enqueue(this.pending.join(''));
		this.pending = [];
		const queued = this.limitBytes - (this.controller.desiredSize ?? 0);
		const replayUnread = Math.max(0, this.replayBytes - (this.enqueuedBytes - queued));
		const unread = queued - replayUnread;
		if (unread <= this.limitBytes) return;
		const error = new SlowReaderError(unread, this.limitBytes);
		this.controller.error(error);
		this.onDrop(error);
	}

	private enqueue(text: string): number {
		const bytes = encoder.encode(text);
		this.controller.enqueue(bytes);
		this.enqueuedBytes += bytes.byteLength;
		return bytes.byteLength;
	}

	private cancelFlush(): void {
		if (this.scheduled) clearImmediate(this.scheduled);
		this.scheduled = undefined;
	}
}
