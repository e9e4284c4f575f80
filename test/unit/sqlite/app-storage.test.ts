// The app storage contract on the SQLite file (the shared suite; its PostgreSQL run is in test/postgres/).

import path from 'node:path';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { sqliteAppStorage } from '../../../src/lib/server/sqlite/app-storage';
import { describeAppStorage } from '../../support/app-storage-suite';
import { tempDir } from '../../support/service';

describeAppStorage('SQLite', async (limits) => {
	const file = path.join(tempDir(), 'sophos.db');
	const open = () => {
		const db = openDatabase(file);
		const saver = new DeltaSqliteSaver(db);
		return { db, saver, storage: sqliteAppStorage(db, saver, { limits, log: () => {} }) };
	};
	const first = open();
	const second = open();
	return {
		storage: first.storage,
		other: second.storage,
		saver: first.saver,
		async close() {
			first.db.close();
			second.db.close();
		}
	};
});
