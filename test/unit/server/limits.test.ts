import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { ConversationStore } from '../../../src/lib/server/sqlite/conversation-store';
import { MessageQueue } from '../../../src/lib/server/sqlite/message-queue';
import { runRefusalError } from '../../../src/lib/server/http/run-refusal-error';
import { sharedCheck } from '../../../src/lib/server/readiness';
import { EventLog } from '../../../src/lib/server/stream/event-log';
import { liveEventResponse } from '../../../src/lib/server/stream/sse-response';

function deferred<T>() {
	let resolve!: (v: T) => void;
	let reject!: (e: unknown) => void;
	const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
	return { promise, resolve, reject };
}

describe('MAX_QUEUED_MESSAGES', () => {
	it('refuses the message past the cap on its conversation only, and counts again once one has run', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-queue-'));
		const db = openDatabase(path.join(dir, 'q.db'));
		const now = new Date().toISOString();
		const conversations = new ConversationStore(db);
		conversations.create('a', 'a', now);
		conversations.create('b', 'b', now);
		const queue = new MessageQueue(db, 2);
		queue.add('a', 'a1', 'one', now);
		queue.add('a', 'a2', 'two', now);
		const full = queue.add('a', 'a3', 'three', now);
		expect(full !== 'queued' && runRefusalError(full)).toMatchObject({
			code: 'QUEUE_FULL',
			message: expect.stringMatching(/already has 2 queued messages \(MAX_QUEUED_MESSAGES\)/)
		});
		expect(queue.list('a').map((m) => m.message)).toEqual(['one', 'two']);
		queue.add('b', 'b1', 'other', now);
		queue.delete('a1');
		queue.add('a', 'a3', 'three', now);
		expect(queue.list('a').map((m) => m.message)).toEqual(['two', 'three']);
		expect(new MessageQueue(db, 0).add('b', 'b2', 'x', now)).toMatchObject({ refused: 'queue-full' });
		db.close();
	});

	it('lists waiting conversations, the one waiting longest first', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-queue-'));
		const db = openDatabase(path.join(dir, 'q.db'));
		const conversations = new ConversationStore(db);
		for (const id of ['x', 'y', 'z']) conversations.create(id, id, '2026-01-01T00:00:00.000Z');
		const queue = new MessageQueue(db, 20);
		queue.add('y', 'y1', 'm', '2026-01-01T00:00:02.000Z');
		queue.add('x', 'x1', 'm', '2026-01-01T00:00:03.000Z');
		queue.add('z', 'z1', 'm', '2026-01-01T00:00:01.000Z');
		queue.add('y', 'y2', 'm', '2026-01-01T00:00:04.000Z');
		expect(queue.conversationsWaiting()).toEqual(['z', 'y', 'x']);
		db.close();
	});
});

describe('MAX_STREAMS_PER_RUN', () => {
	it('answers the stream past the cap 429 with one chat-error, and makes room when one goes away', async () => {
		const log = new EventLog(100);
		const followTwo = { maxFollowers: 2, backlogLimitBytes: 1 << 20, onDrop: () => {} };
		log.publish({ event: 'token', data: 'Hi' });
		const clients = [new AbortController(), new AbortController()];
		const open = clients.map((c) => liveEventResponse(log, 0, c.signal, followTwo));
		expect(open.map((r) => r.status)).toEqual([200, 200]);
		expect(log.followers).toBe(2);

		const refused = liveEventResponse(log, 0, new AbortController().signal, followTwo);
		expect(refused.status).toBe(429);
		expect(refused.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
		expect(await refused.text()).toBe(
			'retry: 1000\n\nevent: chat-error\ndata: {"code":"TOO_MANY_STREAMS","message":"2 streams already follow this run (MAX_STREAMS_PER_RUN): close one, or follow it later"}\n\n'
		);
		expect(log.followers).toBe(2);

		clients[0]!.abort();
		expect(log.followers).toBe(1);
		const third = liveEventResponse(log, 0, new AbortController().signal, followTwo);
		expect(third.status).toBe(200);

		log.publish({ event: 'end', data: { conversation: 'c', run: 'r', status: 'completed' } });
		expect(log.followers).toBe(0);
		// A finished run replays to anyone: nothing stays attached.
		const late = [1, 2, 3].map(() => liveEventResponse(log, 0, new AbortController().signal, followTwo));
		expect(late.map((r) => r.status)).toEqual([200, 200, 200]);
		for (const r of [...open, third, ...late]) await r.body?.cancel();
	});
});

describe('READINESS_CACHE_MS', () => {
	it('shares a check in flight, answers from it for ttl after it settles, then checks again', async () => {
		let t = 0;
		const checks: ReturnType<typeof deferred<string>>[] = [];
		const check = sharedCheck(
			() => {
				const d = deferred<string>();
				checks.push(d);
				return d.promise;
			},
			1000,
			() => t
		);
		const burst = Array.from({ length: 50 }, () => check());
		expect(checks).toHaveLength(1);
		checks[0]!.resolve('first');
		expect(await Promise.all(burst)).toEqual(Array(50).fill('first'));
		t = 999;
		expect(await check()).toBe('first');
		expect(checks).toHaveLength(1);
		t = 1000;
		const next = check();
		expect(checks).toHaveLength(2);
		checks[1]!.resolve('second');
		expect(await next).toBe('second');
	});

	it('with 0 still shares a check in flight, but never answers twice from a settled one', async () => {
		const checks: ReturnType<typeof deferred<number>>[] = [];
		const check = sharedCheck(() => {
			const d = deferred<number>();
			checks.push(d);
			return d.promise;
		}, 0);
		const [a, b] = [check(), check()];
		expect(checks).toHaveLength(1);
		checks[0]!.resolve(1);
		expect([await a, await b]).toEqual([1, 1]);
		const c = check();
		expect(checks).toHaveLength(2);
		checks[1]!.resolve(2);
		expect(await c).toBe(2);
	});

	it('keeps no rejected check', async () => {
		let n = 0;
		const check = sharedCheck(() => (n++ === 0 ? Promise.reject(new Error('down')) : Promise.resolve('up')), 60_000);
		await expect(check()).rejects.toThrow('down');
		expect(await check()).toBe('up');
	});
});
