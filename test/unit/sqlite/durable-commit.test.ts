import path from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { commitDurably } from '../../../src/lib/server/sqlite/durable-commit';
import { ConversationStore } from '../../../src/lib/server/sqlite/conversation-store';
import { MessageQueue } from '../../../src/lib/server/sqlite/message-queue';
import { RunStore } from '../../../src/lib/server/sqlite/run-store';
import { mayRepeat } from '../../../src/lib/server/tools/repeat-policy';
import { ToolJournal } from '../../../src/lib/server/sqlite/tool-journal';
import { tempDir } from '../../support/service';

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

describe('which writes are fsync-ed one by one', () => {
	it("the intent of a call that may not be repeated is; its outcome is not (if lost, the call reads as unfinished)", () => {
		const db = open();
		const conversations = new ConversationStore(db);
		conversations.transaction(() => {
			conversations.create('c1', 'hello', now);
			new RunStore(db).claim('c1', 'r1', now, 'message', 'hello');
		});
		const journal = new ToolJournal(db);
		const seen = watchSynchronous(db, 'tool_calls');
		const call = (id: string) => ({ threadId: 'c1', toolCallId: id, runId: 'r1', step: 2, tool: 'x__y', argsHash: 'h', callHash: 'h', idempotencyKey: `c1:${id}`, messageId: 'm1' });
		journal.recordIntent(call('t1'), now, !mayRepeat(false, 'auto'));
		journal.recordOutcome('c1', 't1', { outcome: 'success', result: 'ok' }, now);
		// Safe to repeat: had a power cut taken the intent, calling again is allowed anyway.
		journal.recordIntent(call('t2'), now, !mayRepeat(true, 'auto'));
		journal.recordIntent(call('t3'), now, !mayRepeat(false, 'repeat'));
		// `report` never repeats, whatever the tool says: its intents are always fsync-ed.
		journal.recordIntent(call('t4'), now, !mayRepeat(true, 'report'));
		expect(seen).toEqual([
			['synchronous = FULL', 0],
			['synchronous = NORMAL', 1],
			['synchronous = FULL', 3],
			['synchronous = NORMAL', 4]
		]);
		expect(journal.get('c1', 't1')?.outcome).toBe('success');
	});

	it('run claims, outcomes and queued messages are not: a power cut may take them with the steps after them', () => {
		const db = open();
		const conversations = new ConversationStore(db);
		const runs = new RunStore(db);
		const seen = watchSynchronous(db, 'runs');
		conversations.transaction(() => {
			conversations.create('c1', 'hello', now);
			runs.claim('c1', 'r1', now, 'message', 'hello');
		});
		new MessageQueue(db, 20).add('c1', 'q1', 'later', now);
		expect(runs.finish('r1', { status: 'completed', messageCount: 2 }, now)).toBe(true);
		expect(runs.claim('c1', 'r2', now, 'message', 'again')).toBe(true);
		expect(seen).toEqual([]);
		expect(count(db, 'runs')).toBe(2);
	});
});
