import type Database from 'better-sqlite3';
import { pruneThreadCheckpoints, type CheckpointRetention } from '../checkpoint';
import { readThreadWork, type ThreadWorkSources } from './read-thread-work';
import type { RunRegistry } from './run-registry';

/**
 * Retention's trigger (CHECKPOINT_RETENTION=latest:N): after a run ends, a finished thread keeps
 * only its latest checkpoints. An unfinished one is left whole, since a resume needs its pending
 * step's checkpoint and writes; so is one a new run has already claimed.
 */
export function createThreadPruner(
	parts: ThreadWorkSources & { db: Database.Database; registry: RunRegistry; retention: CheckpointRetention }
): (conversationId: string) => Promise<void> {
	const { retention } = parts;
	if (retention.kind !== 'latest') return async () => {};
	return async (conversationId) => {
		const work = await readThreadWork(parts, conversationId);
		if (work.kind !== 'finished' || parts.registry.get(conversationId)) return;
		const pruned = pruneThreadCheckpoints(parts.db, conversationId, retention.keep);
		if (pruned.deletedCheckpoints) parts.db.pragma('incremental_vacuum');
	};
}
