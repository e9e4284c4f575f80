// The checkpoint store's migrations (db/migrations.ts): tables are created once, a database written
// by the stock SqliteSaver is imported, and one written by an earlier layout of our own tables is
// upgraded, so the same checkpoints read back and an interrupted run resumes.

import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { HumanMessage, RemoveMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint/index';
import { migrate } from '../../../src/lib/server/sqlite/migrate.js';
import { MIGRATIONS } from '../../../src/lib/server/sqlite/migrations.js';
import { buildAgentGraph, buildNestedGraph, humanTurn } from './checkpoint-agent-graph.js';
import { collect, normalise, openStore, storeBytes } from './checkpoint-compare.js';

let dir = '';
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'sophos-migration-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const thread = (id: string): RunnableConfig => ({ configurable: { thread_id: id } });
const tables = (db: Database.Database) =>
	db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all() as string[];
const latest = MIGRATIONS.length;
const nothingImported = { from: 0, to: latest, notes: [] };
const count = (db: Database.Database, table: string) => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

describe('checkpoint store migrations', () => {
	it('creates the tables on an empty database and is safe to call at every start', () => {
		const db = new Database(join(dir, 'empty.sqlite'));
		expect(migrate(db)).toEqual(nothingImported);
		expect(migrate(db)).toEqual({ from: latest, to: latest, notes: [] });
		expect(tables(db)).toEqual(expect.arrayContaining(['lg_checkpoints', 'lg_log_items', 'lg_logs', 'lg_writes']));
		db.close();
	});

	it('leaves empty stock tables untouched', async () => {
		const db = new Database(join(dir, 'empty-stock.sqlite'));
		await new SqliteSaver(db).getTuple(thread('none')); // creates the stock tables
		expect(migrate(db)).toEqual(nothingImported);
		expect(tables(db)).toEqual(expect.arrayContaining(['checkpoints', 'writes']));
		db.close();
	});

	it('leaves tables named like the stock ones but shaped differently alone', () => {
		const db = new Database(join(dir, 'foreign.sqlite'));
		db.exec(`CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO checkpoints (label) VALUES ('x');
		         CREATE TABLE writes (id INTEGER PRIMARY KEY)`);
		expect(migrate(db)).toEqual(nothingImported);
		expect(db.prepare(`SELECT label FROM checkpoints`).pluck().get()).toBe('x');
		db.close();
	});

	it('imports a stock database: every checkpoint reads the same and an interrupted run resumes', { timeout: 120_000 }, async () => {
		const legacy = openStore(dir, 'stock', 'legacy');
		const graph = buildAgentGraph(legacy.saver);
		for (let turn = 0; turn < 8; turn += 1) await graph.invoke(humanTurn(turn), thread('a'));
		const history = await collect(graph.getStateHistory(thread('a')));
		const older = history.find((s) => s.values.messages.length === 8 && s.next.length === 0)!;
		await graph.updateState(older.config, { messages: [new HumanMessage({ id: 'edited', content: 'Edited?' })] }, 'agent');
		await graph.updateState(thread('a'), { messages: [new RemoveMessage({ id: 'human-0' })] });
		await buildAgentGraph(legacy.saver, { interruptBeforeTools: true }).invoke(humanTurn(8), thread('a'));
		await buildNestedGraph(legacy.saver).invoke(humanTurn(0), thread('b'));

		const stockTuples = JSON.stringify(await collect(legacy.saver.list({})));
		const counts = { c: count(legacy.db, 'checkpoints'), w: count(legacy.db, 'writes') };
		const stockBytes = storeBytes(legacy);
		const referenceFile = join(dir, 'reference.sqlite');
		copyFileSync(legacy.file, referenceFile);

		expect(migrate(legacy.db).notes).toHaveLength(1);
		expect({ c: count(legacy.db, 'lg_checkpoints'), w: count(legacy.db, 'lg_writes') }).toEqual(counts);
		expect(tables(legacy.db)).not.toContain('checkpoints');
		expect(tables(legacy.db)).not.toContain('writes');
		expect(migrate(legacy.db)).toEqual({ from: latest, to: latest, notes: [] });
		expect(count(legacy.db, 'lg_checkpoints')).toBe(counts.c);
		const saver = new DeltaSqliteSaver(legacy.db);
		expect(JSON.stringify(await collect(saver.list({})))).toBe(stockTuples);

		const reference = new Database(referenceFile);
		const referenceSaver = new SqliteSaver(reference);
		const resumed = await buildAgentGraph(saver, { interruptBeforeTools: true }).invoke(null, thread('a'));
		const expected = await buildAgentGraph(referenceSaver, { interruptBeforeTools: true }).invoke(null, thread('a'));
		expect(normalise(resumed)).toEqual(normalise(expected));
		await buildAgentGraph(saver).invoke(humanTurn(9), thread('a'));
		await buildAgentGraph(referenceSaver).invoke(humanTurn(9), thread('a'));
		expect(normalise(await collect(buildAgentGraph(saver).getStateHistory(thread('a'))))).toEqual(
			normalise(await collect(buildAgentGraph(referenceSaver).getStateHistory(thread('a'))))
		);
		reference.close();

		legacy.db.exec('VACUUM');
		expect(storeBytes(legacy)).toBeLessThan(stockBytes / 2);
		legacy.db.close();
	});

	// The fixture was written by DeltaSqliteSaver before value encodings (lg_writes with a rowid, a
	// `deflated` flag, plain JSON skeletons and channel maps) running upgradedScenario; the hash is
	// of JSON.stringify of everything its list({}) returned then.
	it('upgrades a store of the earlier lg_* layout: the same tuples read back, and it resumes', { timeout: 60_000 }, async () => {
		const file = join(dir, 'lg-v1.sqlite');
		copyFileSync(fileURLToPath(new URL('../../fixtures/checkpoint-store-lg-v1.sqlite', import.meta.url)), file);
		const db = new Database(file);
		const layout = () => db.prepare(`SELECT sql FROM sqlite_schema WHERE name = 'lg_writes'`).pluck().get() as string;
		expect(layout()).not.toContain('WITHOUT ROWID');
		expect(migrate(db)).toEqual(nothingImported);
		expect(layout()).toContain('WITHOUT ROWID');
		migrate(db);
		const saver = new DeltaSqliteSaver(db, { cacheItems: 0 });
		const listed = JSON.stringify(await collect(saver.list({})));
		expect(createHash('sha256').update(listed).digest('hex')).toBe(
			'651b514699c8a5f125bf3fc16fdaa4c01b9416e4ec069ad16362bdcb588b7ccf'
		);

		const reference = openStore(dir, 'stock', 'lg-v1-reference');
		await upgradedScenario(reference.saver);
		for (const saverUnderTest of [saver, reference.saver]) {
			await buildAgentGraph(saverUnderTest, { interruptBeforeTools: true }).invoke(null, thread('a'));
			await buildAgentGraph(saverUnderTest).invoke(humanTurn(4), thread('a'));
		}
		const history = async (s: typeof saver | typeof reference.saver) =>
			normalise(await collect(buildAgentGraph(s).getStateHistory(thread('a'))));
		expect(await history(saver)).toEqual(await history(reference.saver));
		db.close();
		reference.db.close();
	});
});

/** What the lg-v1 fixture holds: turns, a fork, a removal, a run stopped before tools, a subgraph. */
async function upgradedScenario(saver: BaseCheckpointSaver) {
	const graph = buildAgentGraph(saver);
	for (let turn = 0; turn < 3; turn += 1) await graph.invoke(humanTurn(turn), thread('a'));
	const history = await collect(graph.getStateHistory(thread('a')));
	const older = history.find((s) => s.values.messages.length === 8 && s.next.length === 0)!;
	await graph.updateState(older.config, { messages: [new HumanMessage({ id: 'edited', content: 'Edited?' })] }, 'agent');
	await graph.updateState(thread('a'), { messages: [new RemoveMessage({ id: 'human-0' })] });
	await buildAgentGraph(saver, { interruptBeforeTools: true }).invoke(humanTurn(3), thread('a'));
	await buildNestedGraph(saver).invoke(humanTurn(0), thread('b'));
}
