import fs from 'node:fs';
import path from 'node:path';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { compareThreadCheckpoints, copyThreadCheckpoints } from '../../../src/lib/server/portable/checkpoint-copy';
import { sqliteSide } from '../../../src/lib/server/portable/sqlite-side';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { tempDir } from '../../support/service';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/upgrade/v3-lg-encoded.sqlite');

function sides() {
	const dir = tempDir();
	fs.copyFileSync(FIXTURE, path.join(dir, 'source.db'));
	const source = sqliteSide(openDatabase(path.join(dir, 'source.db')), 'source');
	const target = sqliteSide(openDatabase(path.join(dir, 'target.db')), 'target');
	return { source, target };
}

/** The saver with its n-th call of `method` failing, as a kill there would leave the target. */
function failingAt(saver: BaseCheckpointSaver, method: 'put' | 'putWrites', n: number): BaseCheckpointSaver {
	let calls = 0;
	const original = saver[method].bind(saver) as (...args: unknown[]) => Promise<unknown>;
	return Object.assign(Object.create(saver), {
		[method]: (...args: unknown[]) => (++calls === n ? Promise.reject(new Error(`killed at ${method} ${n}`)) : original(...args))
	});
}

describe('copyThreadCheckpoints', () => {
	it('copies every checkpoint and pending write of each thread so both savers read it the same', async () => {
		const { source, target } = sides();
		const threads = await source.threadIds();
		expect(threads.length).toBeGreaterThan(1);
		for (const thread of threads) expect(await copyThreadCheckpoints(source.saver, target.saver, thread)).toBeGreaterThan(0);
		for (const thread of threads) expect(await compareThreadCheckpoints(source.saver, target.saver, thread)).toMatchObject({ difference: null });
		// Run again over a complete copy: nothing is put twice.
		for (const thread of threads) expect(await copyThreadCheckpoints(source.saver, target.saver, thread)).toBe(0);
	});

	it.each([
		['put', 3],
		['putWrites', 2]
	] as const)('finishes a copy stopped at its %s number %i when run again', async (method, n) => {
		const { source, target } = sides();
		const threads = await source.threadIds();
		const counts = await Promise.all(threads.map((t) => compareThreadCheckpoints(source.saver, source.saver, t)));
		const thread = threads[counts.findIndex((c) => c.count === Math.max(...counts.map((x) => x.count)))]!;
		await expect(copyThreadCheckpoints(source.saver, failingAt(target.saver, method, n), thread)).rejects.toThrow(`killed at ${method} ${n}`);
		expect((await compareThreadCheckpoints(source.saver, target.saver, thread)).difference).not.toBeNull();
		await copyThreadCheckpoints(source.saver, target.saver, thread);
		expect(await compareThreadCheckpoints(source.saver, target.saver, thread)).toMatchObject({ difference: null });
	});

	it('names the part of a checkpoint that reads back differently', async () => {
		const { source, target } = sides();
		const [thread] = await source.threadIds();
		await copyThreadCheckpoints(source.saver, target.saver, thread!);
		const latest = await source.saver.getTuple({ configurable: { thread_id: thread } });
		await target.saver.putWrites(latest!.config, [['messages', [{ type: 'human', content: 'not in the source' }]]], 'another-task');
		expect((await compareThreadCheckpoints(source.saver, target.saver, thread!)).difference).toMatch(/reads back with a different writes$/);
	});
});
