// Same scenarios against the stock SqliteSaver and DeltaSqliteSaver: everything LangGraph reads back
// (getStateHistory, getState, raw list over every namespace) must be equal, and ours much smaller.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunnableConfig } from '@langchain/core/runnables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentGraph } from './checkpoint-agent-graph.js';
import { DeltaSqliteSaver, type DeltaSqliteSaverOptions } from '../../../src/lib/server/sqlite/checkpoint/index';
import { channelMapOf } from '../../../src/lib/server/checkpoint/row-encoding.js';
import type { CheckpointRow } from '../../../src/lib/server/sqlite/checkpoint/store.js';
import { LINK } from '../../../src/lib/server/checkpoint/link-encoding.js';
import { collect, normalise, openStore, storeBytes, type OpenStore, type SaverKind } from './checkpoint-compare.js';
import {
	copyScenario,
	forkScenario,
	interruptScenario,
	nestedScenario,
	removeScenario,
	turnsScenario
} from './checkpoint-scenarios.js';

let dir = '';
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'sophos-equivalence-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
	history: unknown;
	state: unknown;
	tuples: unknown;
	bytes: number;
}

type Scenario = (store: OpenStore) => Promise<RunnableConfig>;

async function runOn(kind: SaverKind, name: string, scenario: Scenario, options?: DeltaSqliteSaverOptions): Promise<Outcome> {
	const store = openStore(dir, kind, `${name}-${kind}`, options);
	try {
		const config = await scenario(store);
		const graph = buildAgentGraph(store.saver);
		return {
			history: normalise(await collect(graph.getStateHistory(config))),
			state: normalise(await graph.getState(config, { subgraphs: true })),
			tuples: normalise(await collect(store.saver.list({ configurable: { thread_id: config.configurable?.thread_id } }))),
			bytes: storeBytes(store)
		};
	} finally {
		store.db.close();
	}
}

async function expectSameOnBoth(
	name: string,
	scenario: Scenario,
	options?: DeltaSqliteSaverOptions
): Promise<{ stock: Outcome; delta: Outcome }> {
	const stock = await runOn('stock', name, scenario);
	const delta = await runOn('delta', name, scenario, options);
	expect(delta.history).toEqual(stock.history);
	expect(delta.state).toEqual(stock.state);
	expect(delta.tuples).toEqual(stock.tuples);
	return { stock, delta };
}

describe('DeltaSqliteSaver reads back exactly what the stock SqliteSaver does', () => {
	it('a 60-turn agent ⇄ tools thread, in a far smaller file, each message stored once', { timeout: 180_000 }, async () => {
		let messageWrites: { encoding: number; n: number }[] = [];
		let inputs: string[] = [];
		const { stock, delta } = await expectSameOnBoth('long', async ({ db, saver }) => {
			const config = await turnsScenario(saver, 'long', 60);
			if (saver instanceof DeltaSqliteSaver) {
				messageWrites = db
					.prepare(`SELECT encoding, COUNT(*) AS n FROM lg_writes WHERE channel = 'messages' GROUP BY encoding`)
					.all() as typeof messageWrites;
				const rows = db.prepare(`SELECT channels, encoding FROM lg_checkpoints WHERE type IS NOT NULL`).all() as CheckpointRow[];
				inputs = rows.flatMap((row) => Object.entries(channelMapOf(row).__start__ ?? {}).map(([kind]) => kind));
			}
			return config;
		});
		expect((delta.history as unknown[]).length).toBe(60 * 5);
		expect(delta.bytes * 10).toBeLessThan(stock.bytes);
		// Every step's message write names the log items its child checkpoint appended.
		expect(messageWrites).toEqual([{ encoding: LINK.ITEMS, n: 60 * 4 }]);
		// Each turn's input, {"messages":[<message>]} in the checkpoint it starts from, links to that message.
		expect(inputs).toEqual(Array(60).fill('l'));
	});

	it('with the item cache off: prefixes are checked against stored bytes, still one log', { timeout: 60_000 }, async () => {
		let logs = 0;
		await expectSameOnBoth(
			'uncached',
			async ({ db, saver }) => {
				const config = await turnsScenario(saver, 'uncached', 12);
				if (saver instanceof DeltaSqliteSaver) logs = db.prepare(`SELECT COUNT(*) FROM lg_logs`).pluck().get() as number;
				return config;
			},
			{ cacheItems: 0 }
		);
		expect(logs).toBe(1);
	});

	it('a fork from an older checkpoint, continued on the new branch', { timeout: 60_000 }, async () => {
		await expectSameOnBoth('fork', ({ saver }) => forkScenario(saver));
	});

	it('a RemoveMessage (the history is no longer an extension of its parent)', { timeout: 60_000 }, async () => {
		await expectSameOnBoth('remove', ({ saver }) => removeScenario(saver));
	});

	it('a copy of an older checkpoint (updateState as __copy__, put with empty newVersions)', { timeout: 60_000 }, async () => {
		await expectSameOnBoth('copy', ({ saver }) => copyScenario(saver));
	});

	it('runs interrupted before tools and resumed with invoke(null)', { timeout: 60_000 }, async () => {
		const { delta } = await expectSameOnBoth('interrupt', ({ saver }) => interruptScenario(saver));
		expect((delta.state as { next: string[] }).next).toEqual(['tools']);
	});

	it('a subgraph, whose checkpoints live in a child namespace', { timeout: 60_000 }, async () => {
		const { delta } = await expectSameOnBoth('nested', ({ saver }) => nestedScenario(saver));
		const namespaces = new Set((delta.tuples as { config: RunnableConfig }[]).map((t) => t.config.configurable?.checkpoint_ns));
		expect(namespaces.size).toBeGreaterThan(1);
	});
});
