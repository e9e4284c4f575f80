// migrateCheckpointStore: tables are created idempotently, and a database written by the stock
// SqliteSaver is imported so the same checkpoints read back and an interrupted run resumes.

import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { HumanMessage, RemoveMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeltaSqliteSaver, migrateCheckpointStore } from '../../src/lib/server/checkpoint/index.js';
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

describe('migrateCheckpointStore', () => {
	it('creates the tables on an empty database and is safe to call at every start', () => {
		const db = new Database(join(dir, 'empty.sqlite'));
		expect(migrateCheckpointStore(db)).toEqual({ importedCheckpoints: 0, importedWrites: 0, droppedStockTables: false });
		expect(migrateCheckpointStore(db)).toEqual({ importedCheckpoints: 0, importedWrites: 0, droppedStockTables: false });
		expect(tables(db)).toEqual(expect.arrayContaining(['lg_checkpoints', 'lg_log_items', 'lg_logs', 'lg_writes']));
		db.close();
	});

	it('leaves empty stock tables untouched', async () => {
		const db = new Database(join(dir, 'empty-stock.sqlite'));
		await new SqliteSaver(db).getTuple(thread('none')); // creates the stock tables
		expect(migrateCheckpointStore(db).droppedStockTables).toBe(false);
		expect(tables(db)).toEqual(expect.arrayContaining(['checkpoints', 'writes']));
		db.close();
	});

	it('leaves tables named like the stock ones but shaped differently alone', () => {
		const db = new Database(join(dir, 'foreign.sqlite'));
		db.exec(`CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO checkpoints (label) VALUES ('x');
		         CREATE TABLE writes (id INTEGER PRIMARY KEY)`);
		expect(migrateCheckpointStore(db)).toEqual({ importedCheckpoints: 0, importedWrites: 0, droppedStockTables: false });
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
		const count = (table: string) => legacy.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
		const counts = { c: count('checkpoints'), w: count('writes') };
		const stockBytes = storeBytes(legacy);
		const referenceFile = join(dir, 'reference.sqlite');
		copyFileSync(legacy.file, referenceFile);

		expect(migrateCheckpointStore(legacy.db)).toEqual({
			importedCheckpoints: counts.c,
			importedWrites: counts.w,
			droppedStockTables: true
		});
		expect(tables(legacy.db)).not.toContain('checkpoints');
		expect(migrateCheckpointStore(legacy.db).importedCheckpoints).toBe(0);
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
});
