// Same scenarios against the stock PostgresSaver and DeltaPostgresSaver on a real PostgreSQL:
// everything LangGraph reads back (getStateHistory, getState, raw list over every namespace) must be
// equal, and ours much smaller. Where a thread goes on from an older checkpoint (a fork, a copy)
// the stock PostgresSaver reads back values of the other branch (it keys values by channel version,
// and versions repeat across branches), so there the reference is the stock SqliteSaver.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { describe, expect, inject, it } from 'vitest';
import { LINK } from '../../src/lib/server/checkpoint/link-encoding.js';
import type { DeltaPostgresSaverOptions } from '../../src/lib/server/postgres/index.js';
import { buildAgentGraph } from '../unit/sqlite/checkpoint-agent-graph.js';
import { collect, normalise, openStore } from '../unit/sqlite/checkpoint-compare.js';
import {
	copyScenario,
	forkScenario,
	interruptScenario,
	nestedScenario,
	removeScenario,
	turnsScenario
} from '../unit/sqlite/checkpoint-scenarios.js';
import { openPostgresStore, tableBytes, type OpenPostgresStore, type SaverKind } from './checkpoint-postgres-compare.js';

type Scenario = (saver: BaseCheckpointSaver) => Promise<RunnableConfig>;

interface RunOptions {
	saver?: DeltaPostgresSaverOptions;
	/** Looks into the database once the scenario has run. */
	inspect?: (store: OpenPostgresStore) => Promise<void>;
}

async function readBack(saver: BaseCheckpointSaver, config: RunnableConfig) {
	const graph = buildAgentGraph(saver);
	return {
		history: normalise(await collect(graph.getStateHistory(config))),
		state: normalise(await graph.getState(config, { subgraphs: true })),
		tuples: normalise(await collect(saver.list({ configurable: { thread_id: config.configurable?.thread_id } })))
	};
}

async function runOn(kind: SaverKind, scenario: Scenario, options: RunOptions = {}) {
	const store = await openPostgresStore(inject('postgresUrl'), kind, options.saver);
	try {
		const config = await scenario(store.saver);
		await options.inspect?.(store);
		return { ...(await readBack(store.saver, config)), bytes: await tableBytes(store.pool, kind) };
	} finally {
		await store.close();
	}
}

async function runOnStockSqlite(scenario: Scenario) {
	const dir = mkdtempSync(join(tmpdir(), 'sophos-equivalence-'));
	const store = openStore(dir, 'stock');
	try {
		return await readBack(store.saver, await scenario(store.saver));
	} finally {
		store.db.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

async function expectSameAsStockPostgres(scenario: Scenario, options?: RunOptions) {
	const stock = await runOn('stock', scenario);
	const delta = await runOn('delta', scenario, options);
	expect(delta.history).toEqual(stock.history);
	expect(delta.state).toEqual(stock.state);
	expect(delta.tuples).toEqual(stock.tuples);
	return { stock, delta };
}

/** Ours against the stock SqliteSaver; the stock PostgresSaver is shown to read other values. */
async function expectSameAsStockSqlite(scenario: Scenario) {
	const reference = await runOnStockSqlite(scenario);
	const delta = await runOn('delta', scenario);
	const stockPostgres = await runOn('stock', scenario);
	expect(delta.history).toEqual(reference.history);
	expect(delta.state).toEqual(reference.state);
	expect(stockPostgres.history).not.toEqual(reference.history);
}

describe('DeltaPostgresSaver reads back exactly what the stock PostgresSaver does', () => {
	it('a 60-turn agent ⇄ tools thread, in a fraction of the bytes, each message stored once', { timeout: 300_000 }, async () => {
		let messageWrites: { encoding: number; n: number }[] = [];
		const { stock, delta } = await expectSameAsStockPostgres((saver) => turnsScenario(saver, 'long', 60), {
			inspect: async ({ pool }) => {
				const { rows } = await pool.query<{ encoding: number; n: number }>(
					`SELECT encoding, COUNT(*)::int AS n FROM lg_writes WHERE channel = 'messages' GROUP BY encoding`
				);
				messageWrites = rows;
			}
		});
		expect((delta.history as unknown[]).length).toBe(60 * 5);
		expect(delta.bytes * 3).toBeLessThan(stock.bytes);
		// Every step's message write names the log items its child checkpoint appended.
		expect(messageWrites).toEqual([{ encoding: LINK.ITEMS, n: 60 * 4 }]);
	});

	it('with the item cache off: prefixes are checked against stored bytes, still one log', { timeout: 120_000 }, async () => {
		let logs = 0;
		await expectSameAsStockPostgres((saver) => turnsScenario(saver, 'uncached', 12), {
			saver: { cacheItems: 0 },
			inspect: async ({ pool }) => {
				logs = (await pool.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM lg_logs`)).rows[0]!.n;
			}
		});
		expect(logs).toBe(1);
	});

	it('a RemoveMessage (the history is no longer an extension of its parent)', { timeout: 120_000 }, async () => {
		await expectSameAsStockPostgres(removeScenario);
	});

	it('runs interrupted before tools and resumed with invoke(null)', { timeout: 120_000 }, async () => {
		const { delta } = await expectSameAsStockPostgres(interruptScenario);
		expect((delta.state as { next: string[] }).next).toEqual(['tools']);
	});

	it('a subgraph, whose checkpoints live in a child namespace', { timeout: 120_000 }, async () => {
		const { delta } = await expectSameAsStockPostgres(nestedScenario);
		const namespaces = new Set((delta.tuples as { config: RunnableConfig }[]).map((t) => t.config.configurable?.checkpoint_ns));
		expect(namespaces.size).toBeGreaterThan(1);
	});
});

describe('DeltaPostgresSaver reads back what the stock SqliteSaver does where a thread goes on from an older checkpoint', () => {
	it('a fork from an older checkpoint, continued on the new branch', { timeout: 120_000 }, async () => {
		await expectSameAsStockSqlite(forkScenario);
	});

	it('a copy of an older checkpoint (updateState as __copy__, put with empty newVersions)', { timeout: 120_000 }, async () => {
		await expectSameAsStockSqlite(copyScenario);
	});
});
