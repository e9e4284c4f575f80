// The savers' hand-over on the SQLite file (the shared suite; its PostgreSQL run is in test/postgres/).

import path from 'node:path';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { describeHandOver } from '../../support/hand-over-suite';
import { tempDir } from '../../support/service';

describeHandOver('SQLite', async () => {
	const db = openDatabase(path.join(tempDir('sophos-hand-over-'), 'sophos.db'));
	return { saver: new DeltaSqliteSaver(db), close: async () => void db.close() };
});
