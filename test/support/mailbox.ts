// What asynchronous callbacks said, in order, for a test to await one at a time: no sleeps, no polling.

export class Mailbox<T> {
	private readonly queued: T[] = [];
	private readonly waiting: ((value: T) => void)[] = [];

	post(value: T): void {
		const waiter = this.waiting.shift();
		if (waiter) waiter(value);
		else this.queued.push(value);
	}

	/** The oldest value not yet taken, once there is one. */
	next(): Promise<T> {
		if (this.queued.length) return Promise.resolve(this.queued.shift()!);
		return new Promise((resolve) => this.waiting.push(resolve));
	}

	/** Takes values until one matches (as text), and returns it; the ones before it are dropped. */
	async nextMatching(pattern: RegExp): Promise<T> {
		for (;;) {
			const value = await this.next();
			if (pattern.test(String(value))) return value;
		}
	}

	/** Values posted and not taken yet. */
	pending(): T[] {
		return [...this.queued];
	}
}
