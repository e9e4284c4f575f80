/**
 * An immutable snapshot replaced whole on every change, with the listeners told of each: the
 * shape the page's framework-free state machines share, so a `.svelte.ts` binding only has to
 * hold the latest snapshot in `$state`.
 */
export class SnapshotStore<T extends object> {
	private readonly listeners = new Set<(s: T) => void>();

	constructor(protected state: T) {}

	get snapshot(): T {
		return this.state;
	}

	subscribe(listener: (s: T) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	protected set(patch: Partial<T>): void {
		this.state = { ...this.state, ...patch };
		for (const listener of this.listeners) listener(this.state);
	}

	protected unsubscribeAll(): void {
		this.listeners.clear();
	}
}
