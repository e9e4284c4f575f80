// Readers of a run on an instance that does not execute it, as its owner counts them: each reader
// leaving with "cancel" is heard by the owner once, after that reader's row is gone.

import { describe, expect, it } from 'vitest';
import { hasRemoteReaders, watchForUnfollowed } from '../../src/lib/server/postgres/events/run-readers.js';
import { Mailbox } from '../support/mailbox.js';
import { claimedRun, eventParts, useInstances } from '../support/pg-instances.js';

const instances = useInstances('readers');
const { a, b } = instances;

/** What A's watch of the run hears: for each wish taken, whether readers on other instances still count. */
function watchOnA(runId: string) {
	const heard = new Mailbox<boolean>();
	const unwatch = watchForUnfollowed(eventParts(a), runId, (others) => heard.post(others));
	return { heard, unwatch };
}

describe('readers on another instance', () => {
	it('count for the owner until they leave; each leaving with cancel is heard once, seeing itself gone', async () => {
		const { runId } = await claimedRun(a.storage);
		const { heard, unwatch } = watchOnA(runId);
		const [first, second] = [await b.readers.join(runId), await b.readers.join(runId)];
		expect(await hasRemoteReaders(a.pool, runId)).toBe(true);

		first.leave(true);
		expect(await heard.next()).toBe(true);
		second.leave(true);
		second.leave(true);
		expect(await heard.next()).toBe(false);
		expect(await hasRemoteReaders(a.pool, runId)).toBe(false);
		unwatch();
		const { rows } = await a.pool.query('SELECT count(*)::int AS n FROM run_unfollowed WHERE run_id = $1', [runId]);
		expect(rows[0].n).toBe(0);
		expect(heard.pending()).toEqual([]);
	});

	it('a reader leaving with continue asks nothing, and a wish is heard once while the owner\'s bus reconnects around it', async () => {
		const { runId } = await claimedRun(a.storage);
		const { heard, unwatch } = watchOnA(runId);
		const [staying, leaving] = [await b.readers.join(runId), await b.readers.join(runId)];
		staying.leave(false);
		await instances.terminate('bus-a');
		leaving.leave(true);
		await a.logs.nextMatching(/Notify bus: reconnected/);
		expect(await heard.next()).toBe(false);
		unwatch();
		expect(heard.pending()).toEqual([]);
	});

	it('a wish for a run that is no longer running is not kept', async () => {
		const { runId } = await claimedRun(a.storage);
		const reader = await b.readers.join(runId);
		await a.storage.runs.finish(runId, { status: 'completed', messageCount: 1 }, new Date().toISOString());
		const { heard, unwatch } = watchOnA(runId);
		reader.leave(true);
		await expect.poll(() => hasRemoteReaders(a.pool, runId)).toBe(false);
		const { rows } = await a.pool.query('SELECT count(*)::int AS n FROM run_unfollowed WHERE run_id = $1', [runId]);
		expect(rows[0].n).toBe(0);
		unwatch();
		expect(heard.pending()).toEqual([]);
	});
});
