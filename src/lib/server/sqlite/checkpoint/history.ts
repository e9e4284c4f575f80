// The checkpoint history contract (storage/checkpoint-history.ts) on the SQLite file.

import type Database from 'better-sqlite3';
import type { CheckpointHistory } from '../../storage/checkpoint-history';
import { checkpointLineage, latestCheckpointId } from './lineage.js';
import { pruneThreadCheckpoints } from './retention.js';

/**
 * On the app's SQLite connection (openDatabase: auto_vacuum=INCREMENTAL). A prune that deleted
 * anything hands the freed pages back to the file system with `PRAGMA incremental_vacuum`.
 */
export function sqliteCheckpointHistory(db: Database.Database): CheckpointHistory {
	return {
		async latestId(threadId) {
			return latestCheckpointId(db, threadId);
		},
		async lineage(threadId) {
			return checkpointLineage(db, threadId);
		},
		async prune(threadId, keepLast, heads) {
			const pruned = pruneThreadCheckpoints(db, threadId, keepLast, { heads });
			if (pruned.deletedCheckpoints > 0) db.pragma('incremental_vacuum');
			return pruned;
		}
	};
}
