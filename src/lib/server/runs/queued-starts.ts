import type { AppStorage } from '../storage/app-storage';
import type { Claim } from '../storage/run-storage';
import type { ForkTarget } from './fork-point';
import type { RunLauncher } from './run-launcher';
import { queuedFork, runInputOf } from './run-plan';
import { isRefusal, type ForkRefusal } from './run-refusal';

export type QueuedStartsParts = {
	storage: Pick<AppStorage, 'queue'>;
	launcher: Pick<RunLauncher, 'closing' | 'launch'>;
	/** Where a branch replacing the target starts (runs/fork-point.ts). */
	forkPoint: (conversationId: string, target: ForkTarget) => Promise<{ from: string } | ForkRefusal>;
	now: () => string;
	log: (line: string, error?: unknown) => void;
};

/** Queued messages becoming runs: RunService calls it at start and whenever a run ends. */
export class QueuedStarts {
	constructor(private readonly parts: QueuedStartsParts) {}

	/**
	 * Starts queued messages, the conversation waiting longest first, one per idle conversation,
	 * while MAX_CONCURRENT_RUNS leaves room. Resolves once each has started or been left waiting.
	 */
	async startWaiting(): Promise<void> {
		if (this.parts.launcher.closing) return;
		for (const id of await this.parts.storage.queue.conversationsWaiting()) {
			if ((await this.startQueued(id)) === 'full') return;
		}
	}

	/**
	 * Starts the oldest queued message of an idle conversation; nothing if busy, full or nothing waits.
	 * A queued edit or regenerate first finds where its branch starts: one whose message is no longer
	 * on the active branch (or whose starting checkpoint was pruned) is dropped with a log line, and
	 * the next one is tried.
	 */
	private async startQueued(conversationId: string): Promise<Claim | null> {
		const { queue } = this.parts.storage;
		const next = (await queue.list(conversationId))[0];
		if (!next) return null;
		const target = queuedFork(next);
		let from: string | null = null;
		if (target) {
			const fork = await this.parts.forkPoint(conversationId, target);
			if (isRefusal(fork)) {
				this.parts.log(`Queued ${target.kind} ${next.id} dropped: ${fork.refused}`);
				await queue.delete(next.id);
				return this.startQueued(conversationId);
			}
			if (this.parts.launcher.closing) return null;
			from = fork.from;
		}
		// The run takes its queue entry's id: whoever was told the queued id follows the run by it.
		const runId = next.id;
		const now = this.parts.now();
		const message = target?.kind === 'regenerate' ? null : next.message;
		const claim = await queue.claimQueued(conversationId, next.id, {
			runId,
			now,
			trigger: target?.kind ?? 'message',
			input: message,
			...(from ? { branchFrom: from } : {}),
			...(next.model ? { model: next.model } : {})
		});
		if (claim === 'claimed') await this.parts.launcher.launch(conversationId, runId, runInputOf(runId, message), now);
		return claim;
	}
}
