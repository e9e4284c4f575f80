// DeltaPostgresSaver's onPut rides in the put's own write statement: a branch head follows each
// checkpoint put on it, and what onPut refuses (a throw, or a rider the database refuses) rolls
// the checkpoint back with it.

import pg from 'pg';
import { emptyCheckpoint, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { advanceBranchHead } from '../../src/lib/server/postgres/app/branch-storage.js';
import { DeltaPostgresSaver, postgresAppStorage } from '../../src/lib/server/postgres/index.js';
import { migratedTestDatabase, type MigratedDatabase } from '../support/postgres.js';

let opened: MigratedDatabase;
let pool: pg.Pool;
beforeAll(async () => {
	opened = await migratedTestDatabase(inject('postgresUrl'), 'onput');
	pool = opened.pool;
});
afterAll(async () => {
	await opened.close();
});

const metadata = { source: 'loop' as const, step: 0, parents: {} };
const checkpoint = (): Checkpoint => ({ ...emptyCheckpoint(), id: uuid6(-1) });
const at = (checkpointId?: string) => ({ configurable: { thread_id: 'c1', checkpoint_ns: '', ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } });

describe('DeltaPostgresSaver onPut', () => {
	it('moves the branch head with each checkpoint put on it, and a refusal rolls the put back', async () => {
		const storage = postgresAppStorage(pool, { maxConcurrentRuns: 10, maxQueuedMessages: 10 }, { instanceId: 'one', leaseMs: 60_000 });
		let refuse: 'throw' | 'rider' | null = null;
		const saver = new DeltaPostgresSaver(pool, {
			onPut: async ({ threadId, ns, checkpointId, parentId }) => {
				if (refuse === 'throw') throw new Error('refused');
				// A head for a conversation that does not exist: its foreign key fails the statement.
				if (refuse === 'rider') return { sql: ([id]) => `INSERT INTO conversation_branches (conversation_id, head) VALUES (${id}, 'x')`, params: ['none'] };
				return ns === '' && parentId !== undefined ? advanceBranchHead(threadId, parentId, checkpointId) : undefined;
			}
		});
		await storage.conversations.createWithRun('c1', 'r1', 'hello', '2026-01-01T00:00:00.000Z');
		const root = checkpoint();
		await saver.put(at(), root, metadata, {});
		const [onBranch, elsewhere] = [checkpoint(), checkpoint()];
		await storage.runs.finish('r1', { status: 'completed', messageCount: 0 }, '2026-01-01T00:00:01.000Z');
		await storage.runs.claim('c1', 'edit', '2026-01-01T00:00:02.000Z', 'edit', 'edited', { branchFrom: root.id });
		await saver.put(at(root.id), onBranch, metadata, {});
		expect(await storage.branches.head('c1')).toBe(onBranch.id);
		await saver.put(at(root.id), elsewhere, metadata, {});
		expect(await storage.branches.head('c1')).toBe(onBranch.id);
		refuse = 'throw';
		const refused = checkpoint();
		await expect(saver.put(at(onBranch.id), refused, metadata, {})).rejects.toThrow('refused');
		expect(await saver.getTuple(at(refused.id))).toBeUndefined();
		refuse = 'rider';
		await expect(saver.put(at(onBranch.id), refused, metadata, {})).rejects.toMatchObject({ code: '23503' });
		expect(await saver.getTuple(at(refused.id))).toBeUndefined();
		expect(await storage.branches.head('c1')).toBe(onBranch.id);
		refuse = null;
		await saver.put(at(onBranch.id), refused, metadata, {});
		expect(await storage.branches.head('c1')).toBe(refused.id);
	});
});
