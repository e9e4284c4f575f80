// The app storage contract on PostgreSQL (the shared suite; its SQLite run is in test/unit/).

import pg from 'pg';
import { inject } from 'vitest';
import { DeltaPostgresSaver, migratePostgres, postgresAppStorage } from '../../src/lib/server/postgres/index.js';
import { describeAppStorage } from '../support/app-storage-suite.js';
import { createTestDatabase } from '../support/postgres.js';

describeAppStorage('PostgreSQL', async (limits) => {
	const database = await createTestDatabase(inject('postgresUrl'), 'app');
	// Two pools: two instances of the service on one database.
	const pools = [0, 1].map(() => new pg.Pool({ connectionString: database.url, max: 4, pipeline: true }));
	await migratePostgres(pools[0]!);
	return {
		storage: postgresAppStorage(pools[0]!, limits, { instanceId: 'instance-a', leaseMs: 60_000 }),
		other: postgresAppStorage(pools[1]!, limits, { instanceId: 'instance-b', leaseMs: 60_000 }),
		saver: new DeltaPostgresSaver(pools[0]!),
		async close() {
			await Promise.all(pools.map((pool) => pool.end()));
			await database.drop();
		}
	};
});
