// Decoded log items, kept so a turn does not re-decode the whole history.
//
// Why: revived messages are expensive (≈0.1 ms each), so decoding a 4,000-message history costs
// ~400 ms on every getTuple and turn latency would grow with history. Items (log_id, seq) are
// written once and never change (see lg_logs in sqlite/checkpoint/migrations/integer-keys.ts), so a cached item can never be stale.
//
// Trade-off: values handed out share these objects (arrays are fresh copies, elements are not).
// LangGraph treats state values as immutable; code that mutates a message in place would see the
// change in later reads from this process. Pass `cacheItems: 0` to the saver to opt out.

export type ItemLoader = (from: number, to: number) => Promise<unknown[]>;

export class ItemCache {
	/** log id → items 0 .. n-1, least recently used first (Map iteration order). */
	private readonly logs = new Map<number, unknown[]>();
	private total = 0;

	constructor(private readonly maxItems: number) {}

	/** The cached prefix of a log, if any (does not count as a use). */
	peek(logId: number): readonly unknown[] | undefined {
		return this.logs.get(logId);
	}

	/** Items 0 .. n-1 of a log as a fresh array, loading what the cache lacks. */
	async prefix(logId: number, n: number, load: ItemLoader): Promise<unknown[]> {
		const cached = this.logs.get(logId) ?? [];
		if (cached.length >= n) {
			this.touch(logId, cached);
			return cached.slice(0, n);
		}
		const from = cached.length;
		const loaded = await load(from, n);
		const result = cached.slice(0, from).concat(loaded);
		// Another reader may have extended the entry while we awaited; only extend a prefix we hold.
		if ((this.logs.get(logId)?.length ?? 0) === from) this.replace(logId, result.slice());
		return result;
	}

	/** Record items just appended at `from`, if they continue the cached prefix (or start a log). */
	append(logId: number, from: number, items: readonly unknown[]): void {
		const cached = this.logs.get(logId) ?? [];
		if (cached.length !== from) return;
		this.replace(logId, cached.concat(items));
	}

	forget(logIds: Iterable<number>): void {
		for (const logId of logIds) this.replace(logId, undefined);
	}

	private touch(logId: number, items: unknown[]): void {
		this.logs.delete(logId);
		this.logs.set(logId, items);
	}

	private replace(logId: number, items: unknown[] | undefined): void {
		this.total -= this.logs.get(logId)?.length ?? 0;
		this.logs.delete(logId);
		if (items === undefined || this.maxItems <= 0) return;
		this.logs.set(logId, items);
		this.total += items.length;
		for (const [oldest, oldItems] of this.logs) {
			if (this.total <= this.maxItems) break;
			this.logs.delete(oldest);
			this.total -= oldItems.length;
		}
	}
}
