// LangGraph's checkpointer conformance suite (@langchain/langgraph-checkpoint-validation, unmodified)
// against DeltaPostgresSaver on a real PostgreSQL, plus the suite's opt-in getDeltaChannelHistory spec.

import * as vitest from 'vitest';
import { DeltaPostgresSaver } from '../../src/lib/server/postgres/index.js';
import { migratedTestDatabase, type MigratedDatabase } from '../support/postgres.js';

// The suite calls describe/it/expect as globals (Jest style) and our vitest config does not
// enable globals, so provide them before loading it.
const { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach, inject } = vitest;
Object.assign(globalThis, { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach });
const { validate, deltaChannelHistoryTests } = await import('@langchain/langgraph-checkpoint-validation');

const databases = new WeakMap<DeltaPostgresSaver, MigratedDatabase>();

const initializer = {
	checkpointerName: 'DeltaPostgresSaver',
	// A fresh database per checkpointer: the suite requires instances not to share state.
	async createCheckpointer() {
		const opened = await migratedTestDatabase(inject('postgresUrl'), 'conformance');
		const saver = new DeltaPostgresSaver(opened.pool);
		databases.set(saver, opened);
		return saver;
	},
	async destroyCheckpointer(saver: DeltaPostgresSaver) {
		await databases.get(saver)?.close();
	}
};

validate(initializer);
describe('DeltaPostgresSaver (opt-in specs)', () => {
	deltaChannelHistoryTests(initializer);
});
