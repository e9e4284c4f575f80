// Internal: shares the event loop fairly between concurrent runs.
//
// A run's work between two real I/O waits is one unbroken chain of microtasks. Two bursts made
// that chain long enough to starve everything else (a socket write, a timer, another request):
// - Ollama streams one JSON object per line, and a fast model or many runs deliver many lines in
//   one network read; the Ollama client, LangChain, LangGraph and our publishing then handle every
//   token of the read at once. 200 runs streaming at once meant over a second of event-loop lag.
// - 200 runs started at once (each start is a checkpoint, a graph set-up and a model request)
//   meant another second, all inside one poll phase.
// - 200 requests arriving at once were each handled in full within one poll phase.
// So work asks for its turn at these points: as a request is handled (hooks.server.ts), before a
// run starts, as each step begins, and for every line of a model response. A point goes on at once while the current turn of the event
// loop has used less than `targetTurnMs` and nothing waits; otherwise it queues, in arrival order,
// for a later turn. Each turn releases as many queued points as fit in `targetTurnMs`, judged by
// how long the previous turn took, so a burst costs latency in small slices instead of stalling.
// A model response that got its turn goes on with the next lines of its read while the turn has
// time, even though others wait: handed on one line per turn, each run published one token per
// turn and every token cost an SSE write of its own (issue 15).

const NEWLINE = 0x0a;
const RETURN = 0x0d;

/** Where the empty lines (`\n`, `\r\n`) starting at `from` end. */
function afterEmptyLines(chunk: Uint8Array, from: number): number {
	let end = from;
	for (;;) {
		if (chunk[end] === NEWLINE) end += 1;
		else if (chunk[end] === RETURN && chunk[end + 1] === NEWLINE) end += 2;
		else return end;
	}
}
/** Bounds how fast the release rate may change from one turn to the next. */
const MAX_STEP = 2;

export class EventLoopShare {
	private readonly waiting: Array<() => void> = [];
	private releasedPerTurn = 1;
	private lastRelease: number | undefined;
	private releaseScheduled = false;
	/** When work of the current turn of the event loop began; cleared as the loop turns. */
	private turnStarted: number | undefined;
	private turnEndScheduled = false;
	/** Counts turns of the event loop with work in them, so a stream can tell the turn it last went on in. */
	private turnCount = 0;

	/** @param targetTurnMs how long a turn of the event loop may take while runs wait their turn. */
	constructor(private readonly targetTurnMs = 4) {}

	/**
	 * Undefined when the caller may go on now; otherwise a promise resolved in a later turn of the
	 * event loop, when the caller's turn comes. Never rejects.
	 */
	turn(): Promise<void> | undefined {
		if (this.waiting.length === 0 && !this.turnIsFull()) return undefined;
		return new Promise((resolve) => {
			this.waiting.push(resolve);
			this.scheduleRelease();
		});
	}

	/** `fetch` whose response bodies are handed on one line at a time, each when its turn comes. */
	readonly fetch: typeof fetch = async (input, init) => {
		const response = await fetch(input, init);
		if (response.body === null) return response;
		return new Response(this.pace(response.body), {
			status: response.status,
			statusText: response.statusText,
			headers: response.headers
		});
	};

	/**
	 * The same bytes, split after every line and the empty lines that follow it in the same read, each
	 * piece handed on when its turn comes. An empty line ends a server-sent event, and until it
	 * arrives the client's decoder holds the event's line: handed on apart, a line waited for its
	 * event's end through other runs' turns, long enough to outlive young-generation collections, and
	 * with 200 runs those promoted lines and decoder states were a good part of the peak RSS (issue 26). The body
	 * is read as fast as it arrives and held here: left unread in the HTTP client while a run waits
	 * its turn, a long response backs up into the socket, and the client then re-parses the backlog
	 * on every resume (most of the CPU of a 100,000-token OpenAI-compatible answer, issue 15). A
	 * pull source rather than a TransformStream spares every piece the trip through a pipe.
	 */
	pace(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
		const arrived = new ArrivedChunks(body.getReader());
		let chunk: Uint8Array | undefined;
		let start = 0;
		let wentOnIn: number | undefined;
		return new ReadableStream<Uint8Array>(
			{
				pull: async (controller) => {
					if (chunk === undefined) {
						chunk = await arrived.next();
						if (chunk === undefined) return controller.close();
						start = 0;
					}
					const wait = this.goesOn(wentOnIn) ? undefined : this.turn();
					if (wait) await wait;
					wentOnIn = this.turnCount;
					const newline = chunk.indexOf(NEWLINE, start);
					const end = newline === -1 ? chunk.length : afterEmptyLines(chunk, newline + 1);
					controller.enqueue(chunk.subarray(start, end));
					if (end < chunk.length) start = end;
					else chunk = undefined;
				},
				cancel: (reason) => arrived.cancel(reason)
			},
			{ highWaterMark: 0 }
		);
	}

	/** Whether a stream that last went on in turn `wentOnIn` may go on now without asking again. */
	private goesOn(wentOnIn: number | undefined): boolean {
		return wentOnIn === this.turnCount && this.turnStarted !== undefined && !this.turnIsFull();
	}

	private turnIsFull(): boolean {
		const now = performance.now();
		if (this.turnStarted === undefined) {
			this.startTurn(now);
			return false;
		}
		return now - this.turnStarted >= this.targetTurnMs;
	}

	// The clock stops at the next check phase, which every turn of the event loop passes through.
	private startTurn(now: number): void {
		this.turnStarted = now;
		this.turnCount++;
		if (this.turnEndScheduled) return;
		this.turnEndScheduled = true;
		setImmediate(() => {
			this.turnEndScheduled = false;
			this.turnStarted = undefined;
		});
	}

	private scheduleRelease(): void {
		if (this.releaseScheduled) return;
		this.releaseScheduled = true;
		setImmediate(() => this.release());
	}

	// Released callers go on in the microtasks that follow this callback, before the loop turns
	// again, so the time from one release to the next is what they cost the loop.
	private release(): void {
		this.releaseScheduled = false;
		const now = performance.now();
		if (this.lastRelease !== undefined) {
			const turnMs = Math.max(now - this.lastRelease, 0.01);
			const step = Math.min(MAX_STEP, Math.max(1 / MAX_STEP, this.targetTurnMs / turnMs));
			this.releasedPerTurn = Math.max(1, this.releasedPerTurn * step);
		}
		const released = this.waiting.splice(0, Math.floor(this.releasedPerTurn));
		this.lastRelease = this.waiting.length > 0 ? now : undefined;
		if (this.waiting.length > 0) this.scheduleRelease();
		// What the released callers do next belongs to a turn of its own.
		this.startTurn(now);
		for (const resolve of released) resolve();
	}
}

/** Reads a body as it arrives and keeps its chunks until asked; a failure comes after the chunks before it. */
class ArrivedChunks {
	private readonly chunks: Uint8Array[] = [];
	private head = 0;
	private ended = false;
	private failure: { error: unknown } | undefined;
	private wake: (() => void) | undefined;

	constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {
		void this.pump();
	}

	/** The next chunk, undefined once the body has ended; throws what the body failed with. */
	async next(): Promise<Uint8Array | undefined> {
		while (this.head === this.chunks.length) {
			if (this.failure) throw this.failure.error;
			if (this.ended) return undefined;
			await new Promise<void>((resolve) => (this.wake = resolve));
		}
		const chunk = this.chunks[this.head++]!;
		if (this.head === this.chunks.length) {
			this.chunks.length = 0;
			this.head = 0;
		}
		return chunk;
	}

	cancel(reason: unknown): Promise<void> {
		return this.reader.cancel(reason);
	}

	private async pump(): Promise<void> {
		try {
			for (let read = await this.reader.read(); !read.done; read = await this.reader.read()) {
				this.chunks.push(read.value);
				this.woken();
			}
			this.ended = true;
		} catch (e) {
			this.failure = { error: e };
		}
		this.woken();
	}

	private woken(): void {
		const wake = this.wake;
		this.wake = undefined;
		wake?.();
	}
}
