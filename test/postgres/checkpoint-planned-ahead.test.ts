// A put planned from the saver's last put of its thread (issue 26) is used only if the thread is
// still as that put left it (checked by its guarded write in one flight, or by its read under the
// lock): what another saver (another instance) stored meanwhile sends the put back to planning from
// its read, and nothing is overwritten.

import pg from 'pg';
import type { HumanMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DeltaPostgresSaver } from '../../src/lib/server/postgres/index.js';
import { loopMetadata, messageCheckpoints, threadAt } from '../support/message-checkpoints.js';
import { migratedTestDatabase, type MigratedDatabase } from '../support/postgres.js';

let opened: MigratedDatabase;
let pool: pg.Pool;
beforeAll(async () => {
	opened = await migratedTestDatabase(inject('postgresUrl'), 'ahead');
	pool = opened.pool;
});
afterAll(async () => {
	await opened.close();
});

const { checkpoint } = messageCheckpoints();
const metadata = loopMetadata;
const at = (thread: string, checkpointId?: string) => threadAt(thread, checkpointId);
const idsAt = async (saver: DeltaPostgresSaver, thread: string, checkpointId: string) =>
	((await saver.getTuple(at(thread, checkpointId)))!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => m.id);

describe('DeltaPostgresSaver: a put planned before its lock', () => {
	it('plans again from its read when another saver appended to the log the last put left', async () => {
		const ours = new DeltaPostgresSaver(pool);
		const theirs = new DeltaPostgresSaver(pool);
		const root = checkpoint(['m0'], 1);
		await ours.put(at('t'), root, metadata, { messages: 1 });
		// Another instance carries the thread on from the same checkpoint: the log grows past what ours last stored.
		const theirChild = checkpoint(['m0', 'm1'], 2);
		await theirs.put(at('t', root.id), theirChild, metadata, { messages: 2 });
		// Ours goes on from its own last put, as if nothing happened: a fork, which must not write where theirs did.
		const ourChild = checkpoint(['m0', 'x1'], 2);
		await ours.put(at('t', root.id), ourChild, metadata, { messages: 2 });
		const ourGrandchild = checkpoint(['m0', 'x1', 'x2'], 3);
		await ours.put(at('t', ourChild.id), ourGrandchild, metadata, { messages: 3 });

		const fresh = new DeltaPostgresSaver(pool, { cacheItems: 0 });
		expect(await idsAt(fresh, 't', root.id)).toEqual(['m0']);
		expect(await idsAt(fresh, 't', theirChild.id)).toEqual(['m0', 'm1']);
		expect(await idsAt(fresh, 't', ourChild.id)).toEqual(['m0', 'x1']);
		expect(await idsAt(fresh, 't', ourGrandchild.id)).toEqual(['m0', 'x1', 'x2']);
	});

	it('stores the child whole when another saver stored its parent anew', async () => {
		const ours = new DeltaPostgresSaver(pool);
		const theirs = new DeltaPostgresSaver(pool);
		const root = checkpoint(['n0'], 1);
		await ours.put(at('u'), root, metadata, { messages: 1 });
		// The same checkpoint id put again overwrites it, as the stock savers do: its messages differ now.
		await theirs.put(at('u'), { ...checkpoint(['n0', 'n1'], 1), id: root.id }, metadata, { messages: 1 });
		const child = checkpoint(['n0', 'n1', 'n2'], 2);
		await ours.put(at('u', root.id), child, metadata, { messages: 2 });

		const fresh = new DeltaPostgresSaver(pool, { cacheItems: 0 });
		expect(await idsAt(fresh, 'u', root.id)).toEqual(['n0', 'n1']);
		expect(await idsAt(fresh, 'u', child.id)).toEqual(['n0', 'n1', 'n2']);
	});

	it('plans again from its read when another saver deleted the thread', async () => {
		const ours = new DeltaPostgresSaver(pool);
		const root = checkpoint(['d0'], 1);
		await ours.put(at('v'), root, metadata, { messages: 1 });
		await new DeltaPostgresSaver(pool).deleteThread('v');
		// Its parent is gone: stored as a checkpoint whose parent is not there, as the stock saver does.
		const child = checkpoint(['d0', 'd1'], 2);
		await ours.put(at('v', root.id), child, metadata, { messages: 2 });
		const fresh = new DeltaPostgresSaver(pool, { cacheItems: 0 });
		expect(await idsAt(fresh, 'v', child.id)).toEqual(['d0', 'd1']);
	});
});
