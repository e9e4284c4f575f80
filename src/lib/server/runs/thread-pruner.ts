import type { CheckpointHistory } from '../storage/checkpoint-history';
import { readThreadWork, type ThreadWorkSources } from './read-thread-work';
import type { RunService } from './run-service';
import type { CheckpointRetention } from '../checkpoint/retention-plan';

/**
 * Retention's trigger (CHECKPOINT_RETENTION=latest:N): after a run ends, a finished thread keeps
 * only the latest checkpoints of each of its branches (the active one's head included). An
 * unfinished one is left whole, since a resume needs its pending step's checkpoint and writes; so is
 * one a new run has already claimed.
 */
export function createThreadPruner(
	parts: ThreadWorkSources & {
		runs: Pick<RunService, 'isActive'>;
		retention: CheckpointRetention;
		history: Pick<CheckpointHistory, 'prune'>;
	}
): (conversationId: string) => Promise<void> {
	const { retention } = parts;
	if (retention.kind !== 'latest') return async () => {};
	return async (conversationId) => {
		const work = await readThreadWork(parts, conversationId);
		if (work.kind !== 'finished' || (await parts.runs.isActive(conversationId))) return;
		const head = await parts.storage.branches.head(conversationId);
		// Every branch stays whole enough to be read and switched to: none is pruned away.
		await parts.history.prune(conversationId, retention.keep, head ? [head] : []);
	};
}
