// The savers' hand-over (src/lib/server/checkpoint/handed-over.ts), the same scenarios on every
// engine: a run's read of its thread's latest checkpoint answers the graph's next read of it, once,
// and never after a write to the thread.

import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HandsOverLatest } from '../../src/lib/server/checkpoint/handed-over';

export type HandOverSaver = BaseCheckpointSaver & HandsOverLatest;

const latest = (threadId: string, more: Record<string, unknown> = {}): RunnableConfig => ({ configurable: { thread_id: threadId, ...more } });
const metadata = { source: 'loop' as const, step: 0, parents: {} };

async function putOne(saver: BaseCheckpointSaver, threadId: string, parentId?: string): Promise<string> {
	const id = uuid6(-1);
	const config = { configurable: { thread_id: threadId, checkpoint_ns: '', ...(parentId ? { checkpoint_id: parentId } : {}) } };
	await saver.put(config, { ...emptyCheckpoint(), id, channel_values: { topic: id }, channel_versions: { topic: 1 } }, metadata, { topic: 1 });
	return id;
}

const idOf = (tuple: CheckpointTuple | undefined) => tuple?.config.configurable?.checkpoint_id as string | undefined;

/** `open` gives a saver on a fresh database of the engine. */
export function describeHandOver(engine: string, open: () => Promise<{ saver: HandOverSaver; close(): Promise<void> }>) {
	describe(`the saver's hand-over of a thread's latest checkpoint (${engine})`, () => {
		let saver: HandOverSaver;
		let close: () => Promise<void>;
		beforeEach(async () => {
			({ saver, close } = await open());
		});
		afterEach(() => close());

		it('answers the next read of the thread’s latest checkpoint, once; the read after it reads the database', async () => {
			const stored = await putOne(saver, 't1');
			const read = await saver.getTuple(latest('t1'));
			expect(idOf(read)).toBe(stored);
			// What is handed over is what answers, so a hand-over of "no checkpoint" shows it is not read.
			saver.handOver('t1', undefined);
			expect(await saver.getTuple(latest('t1', { checkpoint_ns: '', run_id: 'r' }))).toBeUndefined();
			expect(idOf(await saver.getTuple(latest('t1')))).toBe(stored);

			saver.handOver('t1', read);
			expect(await saver.getTuple(latest('t1'))).toBe(read);
		});

		it('does not answer a read of a named checkpoint, another namespace or another thread, and waits for the latest', async () => {
			const first = await putOne(saver, 't1');
			const second = await putOne(saver, 't1', first);
			await putOne(saver, 't2');
			saver.handOver('t1', undefined);
			expect(idOf(await saver.getTuple(latest('t1', { checkpoint_id: first })))).toBe(first);
			expect(await saver.getTuple(latest('t1', { checkpoint_ns: 'sub' }))).toBeUndefined();
			expect(await saver.getTuple(latest('t2'))).toBeDefined();
			expect(await saver.getTuple(latest('t1'))).toBeUndefined();
			expect(idOf(await saver.getTuple(latest('t1')))).toBe(second);
		});

		it('is dropped by a put, pending writes or a deletion of the thread, as the call begins', async () => {
			const first = await putOne(saver, 't1');
			saver.handOver('t1', undefined);
			const put = putOne(saver, 't1', first);
			// Dropped when the put is called, not when it has stored: a read meanwhile reads the database.
			expect(idOf(await saver.getTuple(latest('t1')))).not.toBeUndefined();
			const second = await put;
			expect(idOf(await saver.getTuple(latest('t1')))).toBe(second);

			saver.handOver('t1', undefined);
			await saver.putWrites(latest('t1', { checkpoint_ns: '', checkpoint_id: second }), [['topic', 'x']], 'task');
			expect(idOf(await saver.getTuple(latest('t1')))).toBe(second);

			saver.handOver('t1', await saver.getTuple(latest('t1')));
			await saver.deleteThread('t1');
			expect(await saver.getTuple(latest('t1'))).toBeUndefined();

			// Another thread's writes leave it.
			const third = await putOne(saver, 't1');
			saver.handOver('t1', undefined);
			await putOne(saver, 't2');
			expect(await saver.getTuple(latest('t1'))).toBeUndefined();
			expect(idOf(await saver.getTuple(latest('t1')))).toBe(third);
		});

		it('is withdrawn by its withdrawal, which leaves a later hand-over of the thread', async () => {
			const stored = await putOne(saver, 't1');
			const withdraw = saver.handOver('t1', undefined);
			withdraw();
			expect(idOf(await saver.getTuple(latest('t1')))).toBe(stored);

			const older = saver.handOver('t1', undefined);
			saver.handOver('t1', undefined);
			older();
			expect(await saver.getTuple(latest('t1'))).toBeUndefined();
		});
	});
}
