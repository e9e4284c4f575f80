// LangGraph's checkpointer conformance suite (@langchain/langgraph-checkpoint-validation, unmodified)
// against DeltaPostgresSaver on a real PostgreSQL, plus the suite's opt-in getDeltaChannelHistory spec.

import pg from 'pg';
import * as vitest from 'vitest';
import { DeltaPostgresSaver, migratePostgres } from '../../src/lib/server/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

// The suite calls describe/it/expect as globals (Jest style) and our vitest config does not
// enable globals, so provide them before loading it.
const { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach, inject } = vitest;
Object.assign(globalThis, { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach });
const { validate, deltaChannelHistoryTests } = await import('@langchain/langgraph-checkpoint-validation');

const databases = new WeakMap<DeltaPostgresSaver, { database: TestDatabase; pool: pg.Pool }>();

const initializer = {
	checkpointerName: 'DeltaPostgresSaver',
	// A fresh database per checkpointer: the suite requires instances not to share state.
	async createCheckpointer() {
		const database = await createTestDatabase(inject('postgresUrl'), 'conformance');
		const pool = new pg.Pool({ connectionString: database.url, max: 4, pipeline: true });
		await migratePostgres(pool);
		const saver = new DeltaPostgresSaver(pool);
		databases.set(saver, { database, pool });
		return saver;
	},
	async destroyCheckpointer(saver: DeltaPostgresSaver) {
		const opened = databases.get(saver);
		await opened?.pool.end();
		await opened?.database.drop();
	}
};

validate(initializer);
describe('DeltaPostgresSaver (opt-in specs)', () => {
	deltaChannelHistoryTests(initializer);
});
