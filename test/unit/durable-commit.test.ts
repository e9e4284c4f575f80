import path from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/lib/server/db/database';
import { commitDurably } from '../../src/lib/server/db/durable-commit';
import { ConversationStore } from '../../src/lib/server/db/conversation-store';
import { MessageQueue } from '../../src/lib/server/db/message-queue';
import { RunStore } from '../../src/lib/server/db/run-store';
import { ToolJournal } from '../../src/lib/server/tools/tool-journal';
import { tempDir } from '../support/service';

const NORMAL = 1;
const FULL = 2;
const now = '2026-01-01T00:00:00.000Z';

function open() {
	const db = openDatabase(path.join(tempDir(), 'sophos.db'));
	db.exec('CREATE TABLE probe (n INTEGER)');
	return db;
}

const synchronous = (db: Database.Database) => db.pragma('synchronous', { simple: true });
const count = (db: Database.Database, table: string) =>
	(db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/**
 * Records, for each change of `synchronous`, how many rows `table` held at that moment: a durable
 * write shows FULL set before its row exists and NORMAL back after it is committed.
 */
function watchSynchronous(db: Database.Database, table: string): Array<[string, number]> {
	const seen: Array<[string, number]> = [];
	const pragma = db.pragma.bind(db);
	vi.spyOn(db, 'pragma').mockImplementation((source: string, options?: Database.PragmaOptions) => {
		if (source.startsWith('synchronous =')) seen.push([source, count(db, table)]);
		return pragma(source, options);
	});
	return seen;
}

describe('commitDurably', () => {
	it('the connection runs synchronous=NORMAL; a durable commit runs with FULL and puts NORMAL back', () => {
		const db = open();
		expect(synchronous(db)).toBe(NORMAL);
		const inside = commitDurably(db, () => {
			db.prepare('INSERT INTO probe VALUES (1)').run();
			return synchronous(db);
		});
		expect(inside).toBe(FULL);
		expect(synchronous(db)).toBe(NORMAL);
		expect(count(db, 'probe')).toBe(1);
	});

	it('a throwing body rolls back and still puts NORMAL back', () => {
		const db = open();
		expect(() =>
			commitDurably(db, () => {
				db.prepare('INSERT INTO probe VALUES (1)').run();
				throw new Error('refused');
			})
		).toThrow('refused');
		expect(count(db, 'probe')).toBe(0);
		expect(synchronous(db)).toBe(NORMAL);
		expect(db.inTransaction).toBe(false);
	});

	it('inside another transaction it joins it: the outer rollback undoes it too', () => {
		const db = open();
		expect(() =>
			db.transaction(() => {
				commitDurably(db, () => db.prepare('INSERT INTO probe VALUES (1)').run());
				throw new Error('outer fails');
			})()
		).toThrow('outer fails');
		expect(count(db, 'probe')).toBe(0);
	});
});

describe('the writes that are fsync-ed one by one', () => {
	it('a run claim, on an existing conversation and with a new one', () => {
		const db = open();
		const conversations = new ConversationStore(db);
		const runs = new RunStore(db);
		const seen = watchSynchronous(db, 'runs');
		conversations.transaction(() => {
			conversations.create('c1', 'hello', now);
			runs.claim('c1', 'r1', now, 'message', 'hello');
		});
		expect(runs.finish('r1', { status: 'completed', messageCount: 2 }, now)).toBe(true);
		expect(runs.claim('c1', 'r2', now, 'message', 'again')).toBe(true);
		// The outcome (finish) is not among them: losing it to a power cut only reads as interrupted.
		expect(seen).toEqual([
			['synchronous = FULL', 0],
			['synchronous = NORMAL', 1],
			['synchronous = FULL', 1],
			['synchronous = NORMAL', 2]
		]);
	});

	it('a queued message', () => {
		const db = open();
		new ConversationStore(db).transaction(() => new ConversationStore(db).create('c1', 'hello', now));
		const seen = watchSynchronous(db, 'queued_messages');
		new MessageQueue(db).add('c1', 'q1', 'later', now);
		expect(seen).toEqual([
			['synchronous = FULL', 0],
			['synchronous = NORMAL', 1]
		]);
	});

	it("a tool call's intent, but not its outcome", () => {
		const db = open();
		const conversations = new ConversationStore(db);
		conversations.transaction(() => {
			conversations.create('c1', 'hello', now);
			new RunStore(db).claim('c1', 'r1', now, 'message', 'hello');
		});
		const journal = new ToolJournal(db);
		const seen = watchSynchronous(db, 'tool_calls');
		const call = { threadId: 'c1', toolCallId: 't1', runId: 'r1', step: 2, tool: 'x__y', argsHash: 'h', idempotencyKey: 'c1:t1' };
		journal.recordIntent(call, now);
		journal.recordOutcome('c1', 't1', { outcome: 'success', result: 'ok' }, now);
		expect(seen).toEqual([
			['synchronous = FULL', 0],
			['synchronous = NORMAL', 1]
		]);
		expect(journal.get('c1', 't1')?.outcome).toBe('success');
	});
});
