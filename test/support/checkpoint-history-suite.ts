// The checkpoint history contract's shared suite (src/lib/server/storage/checkpoint-history.ts):
// the same scenarios and assertions on every engine, each on a real database of its own. A pruned
// thread keeps its newest checkpoints of every branch whole, resumes and continues exactly like an
// unpruned copy, and only storage no kept checkpoint reaches is deleted.

import { HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type ChannelVersions, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelMap } from '../../src/lib/server/checkpoint/channel-map';
import type { CheckpointHistory } from '../../src/lib/server/storage/checkpoint-history';
import { buildAgentGraph, buildNestedGraph, humanTurn } from '../unit/sqlite/checkpoint-agent-graph';
import { collect, normalise } from '../unit/sqlite/checkpoint-compare';

/** What a test reads of the engine's own tables, to see what a prune left. */
export interface StoredCheckpoints {
	/** The channel map of a checkpoint of the thread's root namespace. */
	channelMap(threadId: string, checkpointId: string): Promise<ChannelMap>;
	/** Stored checkpoints of each of the thread's namespaces. */
	checkpointsPerNamespace(threadId: string): Promise<number[]>;
	/** Pending writes of the thread, every namespace. */
	writeCount(threadId: string): Promise<number>;
	/** Log items and logs in the database, and the longest recorded log length. */
	logs(): Promise<{ items: number; logs: number; longest: number }>;
}

export interface OpenedHistory {
	history: CheckpointHistory;
	/** The engine's delta saver on the same database, item cache on. */
	saver: BaseCheckpointSaver;
	/** Another saver on the same database without an item cache: it reads only what is stored. */
	uncached: BaseCheckpointSaver;
	stored: StoredCheckpoints;
	close(): Promise<void>;
}

const thread = (id: string): RunnableConfig => ({ configurable: { thread_id: id } });
const at = (threadId: string, id: string): RunnableConfig => ({ configurable: { thread_id: threadId, checkpoint_id: id } });
const idOf = (config: RunnableConfig) => String(config.configurable!.checkpoint_id);
const noParents = <T extends { parentConfig?: unknown }>(states: T[]) => states.map((s) => ({ ...s, parentConfig: undefined }));

export function describeCheckpointHistory(engine: string, open: () => Promise<OpenedHistory>): void {
	describe(`checkpoint history on ${engine}`, () => {
		let opened: OpenedHistory;
		let history: CheckpointHistory;
		beforeEach(async () => {
			opened = await open();
			history = opened.history;
		});
		afterEach(() => opened.close());

		it('keeps the newest N whole with their writes; the thread resumes and continues like an unpruned copy', { timeout: 60_000 }, async () => {
			const { saver, uncached, stored } = opened;
			const interrupted = buildAgentGraph(saver, { interruptBeforeTools: true });
			const graph = buildAgentGraph(saver);
			for (const id of ['pruned', 'reference']) {
				for (let turn = 0; turn < 10; turn += 1) await graph.invoke(humanTurn(turn), thread(id));
				await interrupted.invoke(humanTurn(10), thread(id));
			}
			const before = await collect(graph.getStateHistory(thread('pruned')));
			const total = before.length;
			const writesBefore = await collect(uncached.list(thread('pruned'), { limit: 7 }));
			const writeCount = await stored.writeCount('pruned');
			expect(await history.latestId('pruned')).toBe(idOf(before[0]!.config));

			const result = await history.prune('pruned', 7, []);
			expect(result.deletedCheckpoints).toBe(total - 7);
			expect(result.deletedWrites).toBeGreaterThan(0);
			expect(await stored.writeCount('pruned')).toBe(writeCount - result.deletedWrites);
			expect(normalise((await collect(uncached.list(thread('pruned')))).map((t) => t.pendingWrites))).toEqual(
				normalise(writesBefore.map((t) => t.pendingWrites))
			);

			const after = await collect(graph.getStateHistory(thread('pruned')));
			expect(after).toHaveLength(7);
			// The oldest kept checkpoint lost its (deleted) parent and is now the thread's root.
			expect(after[6]!.parentConfig).toBeUndefined();
			expect(normalise(noParents(after))).toEqual(normalise(noParents(before.slice(0, 7))));
			const lineage = await history.lineage('pruned');
			expect(lineage.map((entry) => entry.id)).toEqual(after.map((s) => idOf(s.config)).reverse());
			expect(lineage[0]!.parent).toBeNull();
			expect(await history.latestId('pruned')).toBe(idOf(before[0]!.config));
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
		});

		it('moves a value kept checkpoints referenced into the oldest kept one', async () => {
			const { saver, uncached, stored } = opened;
			const notes = 'A long note that is stored once and referenced afterwards. '.repeat(4);
			let config: RunnableConfig = { configurable: { thread_id: 'notes', checkpoint_ns: '' } };
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
			expect((await stored.channelMap('notes', ids[3]!)).notes).toEqual({ r: ids[0] });

			await history.prune('notes', 2, []);
			expect((await stored.channelMap('notes', ids[2]!)).notes).toHaveProperty('v');
			expect((await stored.channelMap('notes', ids[3]!)).notes).toEqual({ r: ids[2] });
			for (const id of ids.slice(2)) {
				const tuple = await uncached.getTuple(at('notes', id));
				expect(tuple?.checkpoint.channel_values).toEqual({ notes, counter: ids.indexOf(id) });
			}
			expect(await uncached.getTuple(at('notes', ids[1]!))).toBeUndefined();
			expect(await history.lineage('notes')).toEqual([
				{ id: ids[2], parent: null },
				{ id: ids[3], parent: ids[2] }
			]);
		});

		it('deletes log items only deleted checkpoints reached (a history rewritten in place)', { timeout: 60_000 }, async () => {
			const { saver, uncached, stored } = opened;
			const graph = buildAgentGraph(saver);
			for (let turn = 0; turn < 4; turn += 1) await graph.invoke(humanTurn(turn), thread('rewritten'));
			// The first question replaced by id: the history is no extension of the old one, so it is
			// stored whole in a new log and the first log's 16 items are reached only by older checkpoints.
			await graph.updateState(thread('rewritten'), { messages: [new HumanMessage({ id: 'human-0', content: 'Rephrased?' })] }, 'agent');
			await graph.invoke(humanTurn(4), thread('rewritten'));
			const state = normalise(await graph.getState(thread('rewritten')));
			const logs = await stored.logs();

			const result = await history.prune('rewritten', 3, []);
			expect(result.deletedItems).toBe(16);
			expect(await stored.logs()).toEqual({ items: logs.items - 16, logs: logs.logs - 1, longest: 20 });
			const reader = buildAgentGraph(uncached);
			expect(normalise(await reader.getState(thread('rewritten')))).toEqual(state);
			await graph.invoke(humanTurn(5), thread('rewritten'));
			expect((await reader.getState(thread('rewritten'))).values.messages).toHaveLength(24);
		});

		it('keeps the newest N of every branch: the older branch and a head that is no tip read whole', { timeout: 60_000 }, async () => {
			const { saver, uncached } = opened;
			const graph = buildAgentGraph(saver);
			for (let turn = 0; turn < 4; turn += 1) await graph.invoke(humanTurn(turn), thread('branches'));
			const states = await collect(graph.getStateHistory(thread('branches')));
			const oldTip = states[0]!;
			const older = states.find((s) => s.values.messages.length === 8 && s.next.length === 0)!;
			const forkedFrom = states.find((s) => s.values.messages.length === 4 && s.next.length === 0)!;
			const forked = await graph.updateState(older.config, { messages: [new HumanMessage({ id: 'edited', content: 'Edited?' })] }, 'agent');
			await graph.invoke(humanTurn(4), at('branches', idOf(forked)));
			const newTip = (await collect(graph.getStateHistory(thread('branches'))))[0]!;
			const before = { old: normalise(await graph.getState(oldTip.config)), new: normalise(await graph.getState(newTip.config)) };
			const forkedFromId = idOf(forkedFrom.config);
			const forkedFromState = normalise(await graph.getState(at('branches', forkedFromId)));

			const result = await history.prune('branches', 2, [forkedFromId]);
			expect(result.deletedCheckpoints).toBeGreaterThan(0);
			const left = (await history.lineage('branches')).map((c) => c.id);
			// Two per branch: the old branch's tip and its parent, the new branch's, and the extra head's.
			expect(left).toHaveLength(6);
			for (const tip of [oldTip, newTip]) expect(left).toContain(idOf(tip.config));
			expect(await history.latestId('branches')).toBe(idOf(newTip.config));
			const reader = buildAgentGraph(uncached);
			expect(normalise(await reader.getState(oldTip.config))).toEqual(before.old);
			expect(normalise(await reader.getState(newTip.config))).toEqual(before.new);
			expect(normalise(await reader.getState(at('branches', forkedFromId)))).toEqual(forkedFromState);
			expect((await reader.getState(oldTip.config)).values.messages).toHaveLength(16);
		});

		it('prunes every namespace of the thread and refuses to keep fewer than one, changing nothing', { timeout: 60_000 }, async () => {
			const { saver, stored } = opened;
			const graph = buildNestedGraph(saver);
			for (let turn = 0; turn < 3; turn += 1) await graph.invoke(humanTurn(turn), thread('nested'));
			const counts = await stored.checkpointsPerNamespace('nested');
			await expect(history.prune('nested', 0, [])).rejects.toThrow(RangeError);
			expect(await stored.checkpointsPerNamespace('nested')).toEqual(counts);
			await history.prune('nested', 2, []);
			const perNamespace = await stored.checkpointsPerNamespace('nested');
			expect(perNamespace.length).toBeGreaterThan(1);
			for (const n of perNamespace) expect(n).toBeLessThanOrEqual(2);
			expect((await graph.getState(thread('nested'))).values.messages).toHaveLength(12);
			// The lineage is the root namespace's only.
			expect(await history.lineage('nested')).toHaveLength(2);
		});

		it('leaves a thread as short as the limit, and an unknown one, as it is', async () => {
			const graph = buildAgentGraph(opened.saver);
			await graph.invoke(humanTurn(0), thread('short'));
			const lineage = await history.lineage('short');
			const none = { deletedCheckpoints: 0, deletedWrites: 0, deletedItems: 0 };
			expect(await history.prune('short', lineage.length, [])).toEqual(none);
			expect(await history.lineage('short')).toEqual(lineage);
			expect(await history.prune('unknown', 1, [])).toEqual(none);
			expect(await history.lineage('unknown')).toEqual([]);
			expect(await history.latestId('unknown')).toBeUndefined();
		});
	});
}
