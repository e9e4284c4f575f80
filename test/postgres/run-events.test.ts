// A run's events kept in PostgreSQL and followed from another instance: the writer's batches, the
// remote stream's bytes against the local one's, flushes that fail and are retried.

import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/lib/protocol/index.js';
import { RunEventWriter } from '../../src/lib/server/postgres/events/run-event-writer.js';
import { remoteEventResponse } from '../../src/lib/server/postgres/events/remote-event-response.js';
import { EventLog } from '../../src/lib/server/stream/event-log.js';
import { liveEventResponse, type LiveResponseOptions } from '../../src/lib/server/stream/sse-response.js';
import { Mailbox } from '../support/mailbox.js';
import { asThePageSeesIt, itemTexts } from '../support/page-view.js';
import { claimedRun, remoteParts, useInstances, type Instance } from '../support/pg-instances.js';

const instances = useInstances('events');
const { a, b } = instances;

const OPTIONS: LiveResponseOptions = { maxFollowers: 2, backlogLimitBytes: 1 << 20, onDrop: () => {} };

const end = (conversation: string, run: string, status: 'completed' | 'interrupted' = 'completed'): RunEvent => ({
	event: 'end',
	data: { conversation, run, status, ...(status === 'interrupted' ? { cause: 'PROCESS_EXITED' } : {}) }
});

/** Posts each batch `instance` hears announced for `runId`. */
function batchesHeard(instance: Instance, runId: string): Mailbox<string> {
	const box = new Mailbox<string>();
	instance.bus.subscribe('sophos_run_events', runId, { notified: () => box.post('batch'), reconnected: () => box.post('reconnected') });
	return box;
}

async function rowsOf(instance: Instance, runId: string) {
	const { rows } = await instance.pool.query<{ first_id: string; last_id: string; events: string; terminal: boolean }>(
		'SELECT first_id, last_id, events, terminal FROM run_events WHERE run_id = $1 ORDER BY first_id',
		[runId]
	);
	return rows.map((r) => ({ first: Number(r.first_id), last: Number(r.last_id), events: JSON.parse(r.events) as unknown[], terminal: r.terminal }));
}


const controller = () => new AbortController().signal;

describe('RunEventWriter', () => {
	it('keeps the events of one turn in one row with the log’s ids, the terminal event at once, and announces each row', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const heard = batchesHeard(b, runId);
		const log = new EventLog(1000);
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: (m) => a.logs.post(m) });
		for (let i = 0; i < 200; i++) log.publish({ event: 'token', data: `t${i} ` });
		expect(await heard.next()).toBe('batch');
		log.publish({ event: 'token', data: 'last' });
		log.publish(end(conversationId, runId));
		await writer.done;
		expect(await heard.next()).toBe('batch');
		const rows = await rowsOf(a, runId);
		expect(rows.map(({ first, last, terminal }) => ({ first, last, terminal }))).toEqual([
			{ first: 1, last: 200, terminal: false },
			{ first: 201, last: 202, terminal: true }
		]);
		expect(rows[0]!.events.slice(0, 2)).toEqual([
			['token', 't0 '],
			['token', 't1 ']
		]);
	});

	it('keeps a run that ends within the interval in one row: its first event does not go alone', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const log = new EventLog(1000);
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: (m) => a.logs.post(m), flushIntervalMs: 60_000 });
		log.publish({ event: 'token', data: 'first ' });
		// Past the turn of the event loop after it: a flush set for at once would be under way by now.
		await new Promise((resolve) => setTimeout(resolve, 0));
		log.publish({ event: 'token', data: 'second' });
		log.publish(end(conversationId, runId));
		await writer.done;
		expect((await rowsOf(a, runId)).map(({ first, last, terminal }) => ({ first, last, terminal }))).toEqual([{ first: 1, last: 3, terminal: true }]);
	});

	it('refuses to attach to a log that has published, since its first events would be missing', async () => {
		const { runId } = await claimedRun(a.storage);
		const log = new EventLog(10);
		log.publish({ event: 'token', data: 'x' });
		expect(() => RunEventWriter.attach(a.pool, log, { runId, log: () => {} })).toThrow(/before the run publishes/);
	});

	it('keeps no more than maxBytes of a run’s events, but always its terminal event', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const log = new EventLog(1000);
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: () => {}, maxBytes: 100 });
		for (let i = 0; i < 20; i++) log.publish({ event: 'token', data: '0123456789' });
		log.publish({ event: 'token', data: '' });
		log.publish(end(conversationId, runId));
		await writer.done;
		const rows = await rowsOf(a, runId);
		const kept = rows.flatMap((r) => r.events);
		expect(kept.length).toBeLessThan(10);
		expect(kept.at(-1)).toEqual(['end', { conversation: conversationId, run: runId, status: 'completed' }]);
		expect(kept.slice(0, -1)).toEqual(Array(kept.length - 1).fill(['token', '0123456789']));
		expect(rows.at(-1)).toMatchObject({ first: 22, last: 22, terminal: true });
	});

	it('logs a flush that fails and tries the same batch again, losing and reordering nothing', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const log = new EventLog(1000);
		const logs = new Mailbox<string>();
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: (m) => logs.post(m), retryDelayMs: { first: 5, last: 20 } });
		await instances.allowConnections(false);
		await instances.terminate('instance-a');
		log.publish({ event: 'token', data: 'one ' });
		expect(await logs.nextMatching(/keeping events 1–1 failed/)).toMatch(/trying again in \d+ ms/);
		log.publish({ event: 'token', data: 'two ' });
		log.publish(end(conversationId, runId));
		expect(await logs.nextMatching(/keeping events 1–1 failed/)).toBeTruthy();
		await instances.allowConnections(true);
		await writer.done;
		const rows = await rowsOf(a, runId);
		expect(rows.map((r) => [r.first, r.last])).toEqual([
			[1, 1],
			[2, 3]
		]);
		expect(rows.flatMap((r) => r.events).map((e) => (e as unknown[])[1])).toEqual(['one ', 'two ', expect.objectContaining({ status: 'completed' })]);
	});
});

describe('remoteEventResponse', () => {
	it('serves another instance’s run with the bytes the local stream has, from any Last-Event-ID', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const heard = batchesHeard(b, runId);
		const log = new EventLog(1000);
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: () => {} });
		log.publish({ event: 'trace', data: { step: 1, name: 'agent', node: 'agent', event: 'enter' } });
		log.publish({ event: 'reasoning', data: 'thinking "hard"\n' });
		log.publish({ event: 'token', data: 'Hello ' });
		expect(await heard.next()).toBe('batch');

		// Opened mid-run on instance B: the kept events, then the rest as A keeps them.
		const remote = await remoteEventResponse(remoteParts(b), runId, 0, controller(), OPTIONS);
		log.publish({ event: 'token', data: 'wörld' });
		log.publish({ event: 'warning', data: { code: 'MCP_DOWN', message: 'x', servers: ['a'] } });
		log.publish(end(conversationId, runId));
		await writer.done;
		const remoteText = await remote.text();
		const localText = await liveEventResponse(log, 0, controller(), OPTIONS).text();
		expect(remoteText).toBe(localText);
		expect(remote.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');

		const parts = remoteParts(b);
		for (const after of [2, 3, 5]) {
			const fromB = await (await remoteEventResponse(parts, runId, after, controller(), OPTIONS)).text();
			expect(fromB).toBe(await liveEventResponse(log, after, controller(), OPTIONS).text());
		}
		// Its terminal event whatever the reader holds: after a takeover it may hold ids the dead owner never kept.
		const atTheEnd = await (await remoteEventResponse(parts, runId, 6, controller(), OPTIONS)).text();
		expect(atTheEnd).toBe(`retry: 1000\n\nid: 6\nevent: end\ndata: {"conversation":"${conversationId}","run":"${runId}","status":"completed"}\n\n`);
	});

	it('refuses a reader past MAX_STREAMS_PER_RUN on this instance with the local refusal, and stops listening for it', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const log = new EventLog(1000);
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: () => {} });
		const parts = remoteParts(b);
		const followers = [await remoteEventResponse(parts, runId, 0, controller(), OPTIONS), await remoteEventResponse(parts, runId, 0, controller(), OPTIONS)];
		const refused = await remoteEventResponse(parts, runId, 0, controller(), OPTIONS);
		expect(refused.status).toBe(429);
		expect(await refused.text()).toContain('"code":"TOO_MANY_STREAMS"');
		log.publish(end(conversationId, runId));
		await writer.done;
		for (const follower of followers) expect(await follower.text()).toContain('event: end');
		expect(parts.counts.size).toBe(0);
	});

	it('drops a remote reader that stops reading, past the backlog limit, as a local one is; it comes back with Last-Event-ID', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const log = new EventLog(1000);
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: () => {} });
		const drops = new Mailbox<string>();
		const parts = remoteParts(b);
		const limit = { ...OPTIONS, backlogLimitBytes: 2_000, onDrop: (e: Error) => drops.post(e.name) };
		const stalled = await remoteEventResponse(parts, runId, 0, controller(), limit);
		for (let i = 0; i < 200; i++) log.publish({ event: 'token', data: `token ${i} ` });
		expect(await drops.next()).toBe('SlowReaderError');
		log.publish(end(conversationId, runId));
		await writer.done;
		await expect(stalled.text()).rejects.toThrow(/bytes of live events unread/);
		expect(parts.counts.size).toBe(0);
		const back = await (await remoteEventResponse(parts, runId, 120, controller(), limit)).text();
		expect(back).toBe(await liveEventResponse(log, 120, controller(), limit).text());
	});

	it('stops following when the reader goes away', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const log = new EventLog(1000);
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: () => {} });
		const parts = remoteParts(b);
		const reader = new AbortController();
		const response = await remoteEventResponse(parts, runId, 0, reader.signal, OPTIONS);
		expect(parts.counts.get(runId)).toBe(1);
		reader.abort();
		expect(parts.counts.size).toBe(0);
		log.publish(end(conversationId, runId));
		await writer.done;
		expect(await response.text()).toBe('retry: 1000\n\n');
	});

	it('reads again after the bus reconnects, so a batch announced while it was away is not missed', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		const log = new EventLog(1000);
		const writer = RunEventWriter.attach(a.pool, log, { runId, log: () => {} });
		const heard = batchesHeard(b, runId);
		const parts = remoteParts(b);
		const response = await remoteEventResponse(parts, runId, 0, controller(), OPTIONS);
		await instances.allowConnections(false);
		await instances.terminate('bus-b');
		expect(await b.logs.nextMatching(/reconnect failed/)).toBeTruthy();
		log.publish({ event: 'token', data: 'while away' });
		log.publish(end(conversationId, runId));
		await writer.done;
		await instances.allowConnections(true);
		expect(await heard.nextMatching(/reconnected/)).toBe('reconnected');
		const live = asThePageSeesIt(await response.text());
		expect(itemTexts(live)).toEqual(['while away']);
		expect(live.outcome).toEqual({ kind: 'end', status: 'completed', run: runId });
	});
});
