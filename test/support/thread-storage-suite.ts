// The thread half of the app storage contract (ThreadStorage), run by describeAppStorage against
// every engine: the protocol's threads are Sophos's conversations, with the metadata clients give.

import { expect, it } from 'vitest';
import type { AppStorage } from '../../src/lib/server/storage/app-storage';
import type { ThreadPageRequest } from '../../src/lib/server/storage/thread-records';

const T = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

const NEWEST: ThreadPageRequest = { order: { by: 'createdAt', direction: 'desc' }, limit: 100, offset: 0 };

export function describeThreadStorage(opened: () => { storage: AppStorage; other: AppStorage }): void {
	const ids = (records: { conversation: { id: string } }[]) => records.map((r) => r.conversation.id);

	it('creates a thread with no run, as a conversation, and refuses a taken id, changing nothing', async () => {
		const { storage, other } = opened();
		expect(await storage.threads.create('t1', T(0), { graph_id: 'agent', nested: { b: 1, a: [true, null] } })).toBe('created');
		expect(await other.threads.create('t1', T(5), { other: 1 })).toBe('exists');
		expect(await other.threads.get('t1')).toEqual({
			conversation: {
				id: 't1',
				title: 'New Conversation',
				createdAt: T(0),
				updatedAt: T(0),
				messageCount: 0,
				model: null,
				status: null
			},
			metadata: { graph_id: 'agent', nested: { a: [true, null], b: 1 } }
		});
		expect(await storage.conversations.get('t1')).toMatchObject({ id: 't1', status: null });
		expect(await storage.threads.get('unknown')).toBeUndefined();
		// A conversation Sophos's own API made is a thread with empty metadata.
		await storage.conversations.createWithRun('c1', 'r1', 'hello', T(1));
		expect(await storage.threads.get('c1')).toMatchObject({ conversation: { id: 'c1', status: 'running' }, metadata: {} });
	});

	it('names a thread made with no run after the message of its first run, and only then', async () => {
		const { storage, other } = opened();
		await storage.threads.create('t1', T(0), {});
		expect(await storage.runs.claim('t1', 'r1', T(1), 'message', 'Plan the trip\nwith details')).toBe('claimed');
		expect((await other.threads.get('t1'))!.conversation.title).toBe('Plan the trip');
		await storage.runs.finish('r1', { status: 'completed', messageCount: 2 }, T(2));
		expect(await storage.runs.claim('t1', 'r2', T(3), 'message', 'Something else')).toBe('claimed');
		expect((await other.threads.get('t1'))!.conversation.title).toBe('Plan the trip');
		await storage.threads.create('t2', T(4), {});
		expect(await storage.runs.claim('t2', 'r3', T(5), 'resume', null)).toBe('claimed');
		expect((await storage.threads.get('t2'))!.conversation.title).toBe('New Conversation');
	});

	it('merges metadata key by key, through either connection, and knows no unknown thread', async () => {
		const { storage, other } = opened();
		await storage.threads.create('t1', T(0), { a: 1, b: 'x' });
		expect(await storage.threads.mergeMetadata('t1', { b: 'y', c: { z: 1 } })).toBe(true);
		await Promise.all([other.threads.mergeMetadata('t1', { d: 1 }), storage.threads.mergeMetadata('t1', { e: 2 })]);
		expect((await other.threads.get('t1'))!.metadata).toEqual({ a: 1, b: 'y', c: { z: 1 }, d: 1, e: 2 });
		expect(await storage.threads.mergeMetadata('unknown', { a: 1 })).toBe(false);
		expect(await storage.threads.get('unknown')).toBeUndefined();
	});

	it('searches and counts by metadata (JSON-equal values), ids and latest-run status, in order and paged', async () => {
		const { storage, other } = opened();
		await storage.threads.create('t1', T(1), { graph_id: 'agent', n: 1, flag: true, obj: { y: [1, 'two'], x: null } });
		await storage.threads.create('t2', T(2), { graph_id: 'agent', n: 2, flag: false });
		await storage.threads.create('t3', T(3), { graph_id: 'other', quote: 'it\'s "x"' });
		await storage.conversations.createWithRun('t4', 'r4', 'hi', T(4));
		await storage.runs.finish('r4', { status: 'failed', error: { code: 'AGENT_FAILURE', message: 'boom' }, messageCount: 1 }, T(4));

		expect(ids(await other.threads.search({ metadata: { graph_id: 'agent' } }, NEWEST))).toEqual(['t2', 't1']);
		expect(ids(await other.threads.search({ metadata: { graph_id: 'agent', n: 1 } }, NEWEST))).toEqual(['t1']);
		expect(ids(await other.threads.search({ metadata: { n: '1' } }, NEWEST))).toEqual([]);
		expect(ids(await other.threads.search({ metadata: { flag: false } }, NEWEST))).toEqual(['t2']);
		expect(ids(await other.threads.search({ metadata: { obj: { x: null, y: [1, 'two'] } } }, NEWEST))).toEqual(['t1']);
		expect(ids(await other.threads.search({ metadata: { obj: { x: null } } }, NEWEST))).toEqual([]);
		expect(ids(await other.threads.search({ metadata: { quote: 'it\'s "x"' } }, NEWEST))).toEqual(['t3']);
		expect(ids(await other.threads.search({ metadata: { missing: null } }, NEWEST))).toEqual([]);
		expect(ids(await other.threads.search({ ids: ['t3', 't1', 'nope'] }, NEWEST))).toEqual(['t3', 't1']);
		expect(ids(await other.threads.search({ ids: [] }, NEWEST))).toEqual([]);
		expect(ids(await other.threads.search({ latestRun: ['failed'] }, NEWEST))).toEqual(['t4']);
		expect(ids(await other.threads.search({ latestRun: ['completed', null] }, NEWEST))).toEqual(['t3', 't2', 't1']);
		expect(ids(await other.threads.search({ latestRun: [] }, NEWEST))).toEqual([]);

		expect(ids(await other.threads.search({}, { order: { by: 'createdAt', direction: 'asc' }, limit: 2, offset: 1 }))).toEqual(['t2', 't3']);
		expect(ids(await other.threads.search({}, { order: { by: 'id', direction: 'desc' }, limit: 10, offset: 0 }))).toEqual(['t4', 't3', 't2', 't1']);
		expect(ids(await other.threads.search({}, { order: { by: 'status', direction: 'desc' }, limit: 1, offset: 0 }))).toEqual(['t4']);
		expect(ids(await other.threads.search({}, { order: { by: 'updatedAt', direction: 'desc' }, limit: 10, offset: 3 }))).toEqual(['t1']);

		expect(await other.threads.count({})).toBe(4);
		expect(await other.threads.count({ metadata: { graph_id: 'agent' }, latestRun: [null] })).toBe(2);
		expect(await other.threads.count({ ids: ['t4'], latestRun: ['running'] })).toBe(0);
	});
}
