// The savers' hand-over on PostgreSQL (the shared suite; its SQLite run is in test/unit/).

import { inject } from 'vitest';
import { DeltaPostgresSaver } from '../../src/lib/server/postgres/index';
import { describeHandOver } from '../support/hand-over-suite';
import { migratedTestDatabase } from '../support/postgres';

describeHandOver('PostgreSQL', async () => {
	const { pool, close } = await migratedTestDatabase(inject('postgresUrl'), 'handover');
	return { saver: new DeltaPostgresSaver(pool), close };
});
