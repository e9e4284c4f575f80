// LangGraph's checkpointer conformance suite (@langchain/langgraph-checkpoint-validation) against
// DeltaSqliteSaver on real SQLite files, plus the suite's opt-in getDeltaChannelHistory spec.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as vitest from 'vitest';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint/index';
import { migrate } from '../../../src/lib/server/sqlite/migrate.js';

// The suite calls describe/it/expect as globals (Jest style) and our vitest config does not
// enable globals, so provide them before loading it.
const { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach } = vitest;
Object.assign(globalThis, { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach });
const { validate, deltaChannelHistoryTests } = await import('@langchain/langgraph-checkpoint-validation');

let dir = '';
let files = 0;
const connections = new WeakMap<DeltaSqliteSaver, Database.Database>();

const initializer = {
	checkpointerName: 'DeltaSqliteSaver',
	beforeAll() {
		dir = mkdtempSync(join(tmpdir(), 'sophos-conformance-'));
	},
	afterAll() {
		rmSync(dir, { recursive: true, force: true });
	},
	// A fresh database file per checkpointer: the suite requires instances not to share state.
	createCheckpointer() {
		const db = new Database(join(dir, `conformance-${(files += 1)}.sqlite`));
		db.pragma('journal_mode = WAL');
		migrate(db);
		const saver = new DeltaSqliteSaver(db);
		connections.set(saver, db);
		return saver;
	},
	destroyCheckpointer(saver: DeltaSqliteSaver) {
		connections.get(saver)?.close();
	}
};

validate(initializer);
describe('DeltaSqliteSaver (opt-in specs)', () => {
	deltaChannelHistoryTests(initializer);
});
