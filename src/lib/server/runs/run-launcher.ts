import type { Elicitations } from '../elicitation/elicitations';
import type { SharedRuns } from '../storage/storage-engine';
import { ActiveRun, type RunInput } from './active-run';
import { executeRun, type ExecutorParts } from './run-executor';
import type { RunRegistry } from './run-registry';

export type RunLauncherParts = ExecutorParts & {
	registry: RunRegistry;
	/** Runs other instances follow and cancel (PostgreSQL); null on one process. */
	shared: SharedRuns | null;
	/** Where answers other instances take for this process's questions go (MCP elicitation). */
	elicitations: Pick<Elicitations, 'answer'>;
	bufferLimit: number;
	/** Told once a run has ended and left the registry; errors are logged. */
	ended: (conversationId: string) => Promise<void>;
};

/** Runs in flight in this process: launching a claimed run in the background, and draining them all at shutdown. */
export class RunLauncher {
	private draining = false;
	private stopped: Promise<void> | null = null;

	constructor(private readonly parts: RunLauncherParts) {}

	/** True from the first `stopAll`: no run may start any more. */
	get closing(): boolean {
		return this.draining;
	}

	/** Executes the run whose claim was just written; resolves once it is registered, not when it ends. */
	async launch(conversationId: string, runId: string, input: RunInput, now: string, firstEventId = 1): Promise<void> {
		const { parts } = this;
		parts.crash('after-run-insert');
		if (input.kind !== 'message') await parts.storage.runs.touchConversation(conversationId, now);
		const run = new ActiveRun(runId, conversationId, parts.bufferLimit, firstEventId);
		const detach = parts.shared?.attach({
			id: runId,
			log: run.log,
			abort: () => run.abort('cancel'),
			cancelIfUnfollowed: () => {
				if (run.unfollowed) run.abort('cancel');
			},
			answer: (id, answer) => parts.elicitations.answer(runId, id, answer)
		});
		parts.registry.add(run);
		run.done = executeRun(run, input, parts).finally(async () => {
			parts.registry.remove(run);
			// Not awaited: the run's readers here had every event from memory, and readers elsewhere
			// wait for its terminal row themselves; the next run need not wait for that flush (issue 26).
			// Closing the shared runs waits for it.
			void detach?.().catch((e) => parts.log(`Run ${runId}: keeping its events failed`, e));
			await parts.ended(conversationId).catch((e) => parts.log(`After run ${runId}`, e));
		});
	}

	/**
	 * Drain, once however often it is called: refuses new runs, lets runs in flight reach their
	 * next step boundary for up to `drainMs`, then aborts the rest; resolves once every run has
	 * recorded its outcome.
	 */
	stopAll(drainMs: number): Promise<void> {
		this.stopped ??= this.drain(drainMs);
		return this.stopped;
	}

	private async drain(drainMs: number): Promise<void> {
		this.draining = true;
		const active = this.parts.registry.all();
		for (const run of active) run.requestStop('shutdown');
		const settled = Promise.all(active.map((run) => run.done));
		let timer: NodeJS.Timeout | undefined;
		const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)));
		await Promise.race([settled, deadline]);
		clearTimeout(timer);
		for (const run of active) run.abort('shutdown');
		await settled;
	}
}
