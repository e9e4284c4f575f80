// pruneThreadCheckpoints: a pruned thread keeps its newest checkpoints whole, resumes and continues
// exactly like an unpruned copy, and only storage no kept checkpoint reaches is deleted.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, uuid6, type ChannelVersions, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointLineage, DeltaSqliteSaver, pruneThreadCheckpoints } from '../../src/lib/server/checkpoint/index.js';
import { channelMapOf, type CheckpointRow } from '../../src/lib/server/checkpoint/store.js';
import { buildAgentGraph, buildNestedGraph, humanTurn } from './checkpoint-agent-graph.js';
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
	it('keeps the newest N whole; the thread resumes and continues like an unpruned copy', { timeout: 60_000 }, async () => {
		const { db, saver } = openStore(dir, 'delta', 'resume');
		const interrupted = buildAgentGraph(saver, { interruptBeforeTools: true });
		const graph = buildAgentGraph(saver);
		for (const id of ['pruned', 'reference']) {
			for (let turn = 0; turn < 10; turn += 1) await graph.invoke(humanTurn(turn), thread(id));
			await interrupted.invoke(humanTurn(10), thread(id));
		}
		const before = await collect(graph.getStateHistory(thread('pruned')));
		const total = before.length;

		const result = pruneThreadCheckpoints(db, 'pruned', 7);
		expect(result.deletedCheckpoints).toBe(total - 7);
		expect(result.deletedWrites).toBeGreaterThan(0);

		const after = await collect(graph.getStateHistory(thread('pruned')));
		expect(after).toHaveLength(7);
		// The oldest kept checkpoint lost its (deleted) parent and is now the thread's root.
		expect(after[6]!.parentConfig).toBeUndefined();
		expect(normalise(after.map((s) => ({ ...s, parentConfig: undefined })))).toEqual(
			normalise(before.slice(0, 7).map((s) => ({ ...s, parentConfig: undefined })))
		);
		expect(await collect(graph.getStateHistory(thread('reference')))).toHaveLength(total);

		expect((await graph.getState(thread('pruned'))).next).toEqual(['tools']);
		for (const id of ['pruned', 'reference']) {
			await interrupted.invoke(null, thread(id));
			await graph.invoke(humanTurn(11), thread(id));
		}
		// Everything the run added since the prune matches the reference thread (but for its name).
		const pruned = await collect(graph.getStateHistory(thread('pruned')));
		const reference = await collect(graph.getStateHistory(thread('reference')));
		expect(pruned).toHaveLength(7 + 2 + 5);
		const renamed = JSON.stringify(normalise(pruned.slice(0, 7))).replaceAll('"pruned"', '"reference"');
		expect(JSON.parse(renamed)).toEqual(normalise(reference.slice(0, 7)));
		db.close();
	});

	it('moves a value kept checkpoints referenced into the oldest kept one', async () => {
		const { db, saver } = openStore(dir, 'delta', 'relocate');
		const notes = 'A long note that is stored once and referenced afterwards. '.repeat(4);
		let config: RunnableConfig = thread('notes');
		const ids: string[] = [];
		for (let step = 0; step < 4; step += 1) {
			const checkpoint: Checkpoint = {
				...emptyCheckpoint(),
				id: uuid6(step),
				channel_values: { notes, counter: step },
				channel_versions: { notes: 1, counter: step + 1 }
			};
			const newVersions: ChannelVersions = step === 0 ? { notes: 1, counter: 1 } : { counter: step + 1 };
			config = await saver.put(config, checkpoint, { source: 'loop', step, parents: {} }, newVersions);
			ids.push(checkpoint.id);
		}
		const channels = (id: string) =>
			channelMapOf(db.prepare(`SELECT channels, encoding FROM lg_checkpoints WHERE checkpoint_id = ?`).get(id) as CheckpointRow);
		expect(channels(ids[3]!).notes).toEqual({ r: ids[0] });

		pruneThreadCheckpoints(db, 'notes', 2);
		expect(channels(ids[2]!).notes).toHaveProperty('v');
		expect(channels(ids[3]!).notes).toEqual({ r: ids[2] });
		const fresh = new DeltaSqliteSaver(db, { cacheItems: 0 });
		for (const id of ids.slice(2)) {
			const tuple = await fresh.getTuple({ configurable: { thread_id: 'notes', checkpoint_id: id } });
			expect(tuple?.checkpoint.channel_values).toEqual({ notes, counter: ids.indexOf(id) });
		}
		expect(await fresh.getTuple({ configurable: { thread_id: 'notes', checkpoint_id: ids[1] } })).toBeUndefined();
		db.close();
	});

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

	it('with branches, every branch keeps its newest N: the older branch and a head that is no tip read whole', { timeout: 60_000 }, async () => {
		const { db, saver } = openStore(dir, 'delta', 'branches');
		const graph = buildAgentGraph(saver);
		const at = (id: string): RunnableConfig => ({ configurable: { thread_id: 'branches', checkpoint_id: id } });
		for (let turn = 0; turn < 4; turn += 1) await graph.invoke(humanTurn(turn), thread('branches'));
		const history = await collect(graph.getStateHistory(thread('branches')));
		const oldTip = history[0]!;
		const older = history.find((s) => s.values.messages.length === 8 && s.next.length === 0)!;
		const forkedFrom = history.find((s) => s.values.messages.length === 4 && s.next.length === 0)!;
		const forked = await graph.updateState(older.config, { messages: [new HumanMessage({ id: 'edited', content: 'Edited?' })] }, 'agent');
		await graph.invoke(humanTurn(4), { configurable: { thread_id: 'branches', checkpoint_id: forked.configurable!.checkpoint_id } });
		const newTip = (await collect(graph.getStateHistory(thread('branches'))))[0]!;
		const before = { old: normalise(await graph.getState(oldTip.config)), new: normalise(await graph.getState(newTip.config)) };
		const forkedFromId = String(forkedFrom.config.configurable!.checkpoint_id);
		const forkedFromState = normalise(await graph.getState(at(forkedFromId)));

		const result = pruneThreadCheckpoints(db, 'branches', 2, { heads: [forkedFromId] });
		expect(result.deletedCheckpoints).toBeGreaterThan(0);
		const left = checkpointLineage(db, 'branches').map((c) => c.id);
		// Two per branch: the old branch's tip and its parent, the new branch's, and the extra head's.
		expect(left).toHaveLength(6);
		for (const tip of [oldTip, newTip]) expect(left).toContain(String(tip.config.configurable!.checkpoint_id));
		const uncached = buildAgentGraph(new DeltaSqliteSaver(db, { cacheItems: 0 }));
		expect(normalise(await uncached.getState(oldTip.config))).toEqual(before.old);
		expect(normalise(await uncached.getState(newTip.config))).toEqual(before.new);
		expect(normalise(await uncached.getState(at(forkedFromId)))).toEqual(forkedFromState);
		expect((await uncached.getState(oldTip.config)).values.messages).toHaveLength(16);
		db.close();
	});

	it('prunes every namespace of the thread and refuses to keep fewer than one', { timeout: 60_000 }, async () => {
		const { db, saver } = openStore(dir, 'delta', 'nested');
		const graph = buildNestedGraph(saver);
		for (let turn = 0; turn < 3; turn += 1) await graph.invoke(humanTurn(turn), thread('nested'));
		expect(() => pruneThreadCheckpoints(db, 'nested', 0)).toThrow(RangeError);
		pruneThreadCheckpoints(db, 'nested', 2);
		const perNamespace = db
			.prepare(
				`SELECT t.checkpoint_ns, COUNT(*) AS n FROM lg_checkpoints c JOIN lg_threads t ON t.id = c.thread
				 WHERE t.thread_id = ? AND c.type IS NOT NULL GROUP BY t.checkpoint_ns`
			)
			.all('nested') as { n: number }[];
		expect(perNamespace.length).toBeGreaterThan(1);
		for (const { n } of perNamespace) expect(n).toBeLessThanOrEqual(2);
		expect((await graph.getState(thread('nested'))).values.messages).toHaveLength(12);
		db.close();
	});
});
