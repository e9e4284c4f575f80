// Writes a run sends without waiting for their commit, so the step that made them can end at once
// (a tool call's journal outcome, tool-step.ts: a round trip in sequence on PostgreSQL, issue
// 26). The run's end waits for them before it records the run's outcome, and fails the run with the
// first of them that failed (runs/run-executor.ts).

export class UnconfirmedWrites {
	private readonly writes = new Set<Promise<void>>();
	private failure: { error: unknown } | undefined;

	add(write: Promise<void>): void {
		const settled = write.then(
			() => void this.writes.delete(settled),
			(error: unknown) => {
				this.failure ??= { error };
				this.writes.delete(settled);
			}
		);
		this.writes.add(settled);
	}

	/** Once every write added so far has settled: the first error among them, if one failed. */
	async settled(): Promise<{ error: unknown } | undefined> {
		while (this.writes.size > 0) await Promise.all(this.writes);
		return this.failure;
	}
}
