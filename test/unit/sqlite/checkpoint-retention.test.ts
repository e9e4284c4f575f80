// pruneThreadCheckpoints without branches, which only the SQLite store has: branches that are not the
// newest lose their checkpoints and the items only they reached. The branch-keeping prune the
// runtime uses runs in the shared suite of both engines (checkpoint-history.test.ts).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeltaSqliteSaver, pruneThreadCheckpoints } from '../../../src/lib/server/sqlite/checkpoint/index';
import { buildAgentGraph, humanTurn } from './checkpoint-agent-graph.js';
import { collect, normalise, openStore } from './checkpoint-compare.js';

let dir = '';
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'sophos-retention-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const thread = (id: string): RunnableConfig => ({ configurable: { thread_id: id } });
const count = (db: { prepare(sql: string): { get(...args: unknown[]): unknown } }, sql: string, ...args: unknown[]) =>
	(db.prepare(sql).get(...args) as { n: number }).n;

describe('pruneThreadCheckpoints', () => {
	it('deletes log items that only deleted checkpoints reached (an abandoned branch)', { timeout: 60_000 }, async () => {
		const { db, saver } = openStore(dir, 'delta', 'branch');
		const graph = buildAgentGraph(saver);
		for (let turn = 0; turn < 4; turn += 1) await graph.invoke(humanTurn(turn), thread('branch'));
		const history = await collect(graph.getStateHistory(thread('branch')));
		const older = history.find((s) => s.values.messages.length === 8 && s.next.length === 0)!;
		await graph.updateState(older.config, { messages: [new HumanMessage({ id: 'edited', content: 'Edited?' })] }, 'agent');
		await graph.invoke(humanTurn(4), thread('branch'));
		const state = normalise(await graph.getState(thread('branch')));
		const items = count(db, `SELECT COUNT(*) AS n FROM lg_log_items`);

		const result = pruneThreadCheckpoints(db, 'branch', 3);
		// The first log held 16 messages; the kept checkpoints (all on the new branch) reach its first 8.
		expect(result.deletedItems).toBe(8);
		expect(count(db, `SELECT COUNT(*) AS n FROM lg_log_items`)).toBe(items - 8);
		const uncached = buildAgentGraph(new DeltaSqliteSaver(db, { cacheItems: 0 }));
		expect(normalise(await uncached.getState(thread('branch')))).toEqual(state);
		// Recorded log lengths never shrink, so a position is never written twice.
		expect(db.prepare(`SELECT MAX(length) FROM lg_logs`).pluck().get()).toBe(16);
		await graph.invoke(humanTurn(5), thread('branch'));
		expect((await uncached.getState(thread('branch'))).values.messages).toHaveLength(17);
		db.close();
	});
});
