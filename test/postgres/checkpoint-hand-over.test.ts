// The savers' hand-over on PostgreSQL (the shared suite; its SQLite run is in test/unit/).

import pg from 'pg';
import { inject } from 'vitest';
import { DeltaPostgresSaver, migratePostgres } from '../../src/lib/server/postgres/index';
import { describeHandOver } from '../support/hand-over-suite';
import { createTestDatabase } from '../support/postgres';

describeHandOver('PostgreSQL', async () => {
	const database = await createTestDatabase(inject('postgresUrl'), 'handover');
	const pool = new pg.Pool({ connectionString: database.url, max: 4, pipeline: true });
	await migratePostgres(pool);
	return {
		saver: new DeltaPostgresSaver(pool),
		close: async () => {
			await pool.end();
			await database.drop();
		}
	};
});
