import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { MIGRATIONS } from '../../../src/lib/server/sqlite/migrations';
import { ConversationStore } from '../../../src/lib/server/sqlite/conversation-store';
import { RunStore } from '../../../src/lib/server/sqlite/run-store';
import { tempDir } from '../../support/service';

function open() {
	const file = path.join(tempDir(), 'sophos.db');
	const db = openDatabase(file);
	return { file, db, conversations: new ConversationStore(db), runs: new RunStore(db) };
}

describe('database', () => {
	it('migrates once: user_version counts the migrations; the app tables and the checkpoint store', () => {
		const { file, db } = open();
		expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
		const tables = db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'lg_%' ORDER BY name").all();
		expect(tables).toEqual([
			{ name: 'allowed_tools' },
			{ name: 'conversation_branches' },
			{ name: 'conversations' },
			{ name: 'mcp_auth' },
			{ name: 'mcp_sign_ins' },
			{ name: 'queued_messages' },
			{ name: 'runs' },
			{ name: 'sessions' },
			{ name: 'sqlite_sequence' },
			{ name: 'tool_approvals' },
			{ name: 'tool_calls' }
		]);
		expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name LIKE 'lg_%'").pluck().get()).toBeGreaterThan(0);
		db.close();
		const again = openDatabase(file);
		expect(again.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
		again.close();
	});
});

describe('run ledger', () => {
	it('records runs that start a branch (edit, regenerate) and refuses a trigger it does not know', () => {
		const { conversations, runs, db } = open();
		conversations.create('c1', 'hello', '2026-01-01T00:00:00.000Z');
		expect(runs.claim('c1', 'r1', '2026-01-02T00:00:00.000Z', 'edit', 'hello again')).toBe(true);
		expect(runs.claim('c1', 'r2', '2026-01-03T00:00:00.000Z', 'regenerate', null)).toBe(false);
		expect(runs.get('r1')).toMatchObject({ trigger: 'edit', input: 'hello again', status: 'running' });
		expect(conversations.get('c1')?.updatedAt).toBe('2026-01-02T00:00:00.000Z');
		expect(() =>
			db.exec(`INSERT INTO runs (id, conversation_id, status, started_at, trigger) VALUES ('r3', 'c1', 'completed', 'x', 'other')`)
		).toThrow(/CHECK constraint/);
	});

	it('lets one run claim a conversation at a time, whoever asks', () => {
		const { conversations, runs, db } = open();
		conversations.create('c1', 'hello', '2026-01-01T00:00:00.000Z');
		expect(runs.claim('c1', 'r1', '2026-01-01T00:00:01.000Z', 'message', 'hi')).toBe(true);
		expect(runs.claim('c1', 'r2', '2026-01-01T00:00:02.000Z', 'message', 'hi')).toBe(false);
		// A second connection (another process) is refused by the index too.
		const other = new RunStore(openDatabase(db.name));
		expect(other.claim('c1', 'r3', '2026-01-01T00:00:03.000Z', 'message', 'hi')).toBe(false);
		expect(runs.finish('r1', { status: 'completed', messageCount: 2 }, '2026-01-01T00:00:04.000Z')).toBe(true);
		expect(runs.claim('c1', 'r2', '2026-01-01T00:00:05.000Z', 'message', 'hi')).toBe(true);
	});

	it('keeps exactly one outcome when two try to record one', () => {
		const { conversations, runs } = open();
		conversations.create('c1', 'hello', '2026-01-01T00:00:00.000Z');
		runs.claim('c1', 'r1', '2026-01-01T00:00:01.000Z', 'message', 'hi');
		expect(runs.finish('r1', { status: 'completed', messageCount: 2 }, '2026-01-01T00:00:02.000Z')).toBe(true);
		expect(
			runs.finish('r1', { status: 'failed', error: { code: 'AGENT_FAILURE', message: 'x' }, messageCount: 0 }, '2026-01-01T00:00:03.000Z')
		).toBe(false);
		expect(runs.list('c1')[0]).toMatchObject({ status: 'completed', error: null });
		expect(conversations.get('c1')).toMatchObject({ messageCount: 2, updatedAt: '2026-01-01T00:00:02.000Z', status: 'completed' });
	});

	it('lists the runs left running, with their input, for recovery', () => {
		const { conversations, runs } = open();
		for (const c of ['a', 'b']) conversations.create(c, c, '2026-01-01T00:00:00.000Z');
		runs.claim('a', 'ra', '2026-01-01T00:00:01.000Z', 'message', 'hello a');
		runs.claim('b', 'rb', '2026-01-01T00:00:01.000Z', 'resume', null);
		runs.finish('rb', { status: 'completed', messageCount: 2 }, '2026-01-01T00:00:02.000Z');
		expect(runs.listRunning()).toEqual([{ id: 'ra', conversationId: 'a' }]);
		expect(runs.get('ra')).toMatchObject({ input: 'hello a', trigger: 'message', status: 'running' });
		runs.finish('ra', { status: 'interrupted', error: { code: 'PROCESS_EXITED', message: 'gone' }, messageCount: 1 }, '2026-01-01T00:00:03.000Z');
		expect(conversations.get('a')).toMatchObject({ status: 'interrupted', error: { code: 'PROCESS_EXITED', message: 'gone' } });
		expect(conversations.get('b')).toMatchObject({ status: 'completed' });
		expect(conversations.get('b')!.error).toBeUndefined();
	});

	it('lists conversations newest first and deletes with their runs', () => {
		const { conversations, runs } = open();
		conversations.create('old', 'old', '2026-01-01T00:00:00.000Z');
		conversations.create('new', 'new', '2026-01-02T00:00:00.000Z');
		expect(conversations.firstPage(1000).conversations.map((c) => c.id)).toEqual(['new', 'old']);
		runs.claim('old', 'r1', '2026-01-03T00:00:00.000Z', 'message', 'hi');
		runs.touchConversation('old', '2026-01-03T00:00:00.000Z');
		expect(conversations.firstPage(1000).conversations.map((c) => c.id)).toEqual(['old', 'new']);
		expect(conversations.delete('old')).toBe(true);
		expect(runs.list('old')).toEqual([]);
		expect(conversations.delete('old')).toBe(false);
	});
});
