// Internal: shares the event loop between the model streams of concurrent runs.
//
// Ollama streams one JSON object per line. When a burst of lines arrives in one network read
// (a fast model, many runs at once), the Ollama client parses them and LangChain, LangGraph and our
// publishing handle every token in one unbroken chain of microtasks, so nothing else (a socket
// write, a timer, another request) gets the event loop until the whole read is done. With 200 runs
// streaming at once that was over a second of event-loop lag. The pacer hands the body on one line
// at a time: the first line of a read goes at once while no other line waits, and every other line
// queues for a later turn of the event loop, in arrival order. Each turn releases as many queued
// lines as fit in `targetTurnMs`, judged by how long the previous turn took, so a burst costs
// latency in small slices instead of stalling everything else.

const NEWLINE = 0x0a;
/** Bounds how fast the release rate may change from one turn to the next. */
const MAX_STEP = 2;

export class StreamPacer {
	private readonly waiting: Array<() => void> = [];
	private linesPerTurn = 1;
	private lastRelease: number | undefined;
	private releaseScheduled = false;

	/** @param targetTurnMs how long a turn of the event loop may take while lines are queued. */
	constructor(private readonly targetTurnMs = 4) {}

	/** `fetch` whose response bodies are handed on through this pacer. */
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
	 * The same bytes, split after every newline, each piece handed on when the pacer releases it.
	 * A pull source rather than a TransformStream: it reads only when the consumer asks, and spares
	 * every chunk the trip through a pipe (measurably cheaper per model call).
	 */
	pace(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
		const reader = body.getReader();
		let chunk: Uint8Array | undefined;
		let start = 0;
		return new ReadableStream<Uint8Array>(
			{
				pull: async (controller) => {
					if (chunk === undefined) {
						const read = await reader.read();
						if (read.done) return controller.close();
						chunk = read.value;
						start = 0;
					}
					if (start > 0 || this.waiting.length > 0) await this.nextTurn();
					const newline = chunk.indexOf(NEWLINE, start);
					const end = newline === -1 ? chunk.length : newline + 1;
					controller.enqueue(chunk.subarray(start, end));
					if (end < chunk.length) start = end;
					else chunk = undefined;
				},
				cancel: (reason) => reader.cancel(reason)
			},
			{ highWaterMark: 0 }
		);
	}

	private nextTurn(): Promise<void> {
		return new Promise((resolve) => {
			this.waiting.push(resolve);
			this.scheduleRelease();
		});
	}

	private scheduleRelease(): void {
		if (this.releaseScheduled) return;
		this.releaseScheduled = true;
		setImmediate(() => this.release());
	}

	// A released line is handled in the microtasks that follow this callback, before the loop turns
	// again, so the time from one release to the next is what the released lines cost the loop.
	private release(): void {
		this.releaseScheduled = false;
		const now = performance.now();
		if (this.lastRelease !== undefined) {
			const turnMs = Math.max(now - this.lastRelease, 0.01);
			const step = Math.min(MAX_STEP, Math.max(1 / MAX_STEP, this.targetTurnMs / turnMs));
			this.linesPerTurn = Math.max(1, this.linesPerTurn * step);
		}
		const released = this.waiting.splice(0, Math.floor(this.linesPerTurn));
		this.lastRelease = this.waiting.length > 0 ? now : undefined;
		if (this.waiting.length > 0) this.scheduleRelease();
		for (const resolve of released) resolve();
	}
}
