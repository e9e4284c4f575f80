// The embedded engine: one SQLite file, opened (and migrated) once by this process.

import { DeltaSqliteSaver } from './checkpoint';
import { BranchStore } from './branch-store';
import { openDatabase } from './database';
import type { AppStorageLimits } from '../storage/app-storage';
import type { StorageEngine } from '../storage/storage-engine';
import { sqliteAppStorage } from './app-storage';
import { sqliteCheckpointHistory } from './checkpoint/history';

export function openSqliteEngine(file: string, limits: AppStorageLimits, log: (line: string) => void): StorageEngine {
	const db = openDatabase(file, log);
	const branches = new BranchStore(db);
	const saver = new DeltaSqliteSaver(db, {
		onPut: ({ threadId, ns, checkpointId, parentId }) => {
			if (ns === '' && parentId !== undefined) branches.advance(threadId, parentId, checkpointId);
		}
	});
	return {
		kind: 'sqlite',
		where: `SQLite file ${file}`,
		storage: sqliteAppStorage(db, saver, { limits, log }),
		checkpointer: saver,
		history: sqliteCheckpointHistory(db),
		leases: null,
		shared: null,
		pool: null,
		async ping() {
			db.prepare('SELECT 1').get();
		},
		async close() {
			db.close();
		}
	};
}
