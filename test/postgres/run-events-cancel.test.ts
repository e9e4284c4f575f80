// Cancel through another instance: the request reaches the run's owner, and the asking instance
// answers once the outcome is recorded, or says the owner is gone.

import { describe, expect, it } from 'vitest';
import { askOwnerToCancel, watchForCancel } from '../../src/lib/server/postgres/events/run-cancel.js';
import { RunEventWriter } from '../../src/lib/server/postgres/events/run-event-writer.js';
import { EventLog } from '../../src/lib/server/stream/event-log.js';
import { Mailbox } from '../support/mailbox.js';
import { claimedRun, eventParts, runStateFrom, useInstances, type Instance } from '../support/pg-instances.js';

const instances = useInstances('cancel');
const { a, b } = instances;

/**
 * A run executing on instance A that, told to cancel, does what ActiveRun and the executor do:
 * records `cancelled`, then publishes its terminal event, which its writer keeps.
 */
async function runOnA() {
	const { conversationId, runId } = await claimedRun(a.storage);
	const log = new EventLog(100);
	const writer = RunEventWriter.attach(a.pool, log, { runId, log: () => {} });
	const cancels = new Mailbox<string>();
	const onCancel = () => {
		cancels.post('cancel');
		void (async () => {
			await a.storage.runs.finish(runId, { status: 'cancelled', messageCount: 1 }, new Date().toISOString());
			log.publish({ event: 'end', data: { conversation: conversationId, run: runId, status: 'cancelled' } });
		})();
	};
	return { runId, writer, cancels, watch: () => watchForCancel(eventParts(a), runId, onCancel) };
}

/** Posts each cancel request `instance` hears announced for `runId`. */
function cancelsHeard(instance: Instance, runId: string): Mailbox<string> {
	const box = new Mailbox<string>();
	instance.bus.subscribe('sophos_run_cancel', runId, { notified: () => box.post('asked'), reconnected: () => {} });
	return box;
}

describe('cancel through another instance', () => {
	it('reaches the owner, which stops the run, and answers once the outcome is recorded', async () => {
		const run = await runOnA();
		const unwatch = run.watch();
		expect(await askOwnerToCancel(eventParts(b), run.runId, { state: runStateFrom(b), waitMs: 60_000 })).toBe('recorded');
		expect((await b.storage.runs.get(run.runId))?.status).toBe('cancelled');
		await run.writer.done;
		unwatch();
		expect(run.cancels.pending()).toEqual(['cancel']);
	});

	it('reaches an owner that began watching after the request was made', async () => {
		const run = await runOnA();
		const asked = cancelsHeard(a, run.runId);
		const answer = askOwnerToCancel(eventParts(b), run.runId, { state: runStateFrom(b), waitMs: 60_000 });
		await asked.next();
		run.watch();
		expect(await answer).toBe('recorded');
		expect(await run.cancels.next()).toBe('cancel');
	});

	it('reaches an owner whose bus was away when the request was announced, once it is back', async () => {
		const run = await runOnA();
		run.watch();
		const asked = cancelsHeard(b, run.runId);
		await b.pool.query('SELECT 1');
		await instances.allowConnections(false);
		await instances.terminate('bus-a');
		expect(await a.logs.nextMatching(/reconnect failed/)).toBeTruthy();
		const answer = askOwnerToCancel(eventParts(b), run.runId, { state: runStateFrom(b), waitMs: 60_000 });
		await asked.next();
		expect(run.cancels.pending()).toEqual([]);
		await instances.allowConnections(true);
		expect(await run.cancels.next()).toBe('cancel');
		expect(await answer).toBe('recorded');
	});

	it('says the owner is gone when its lease has expired, leaving the outcome to the takeover', async () => {
		const { runId } = await claimedRun(a.storage);
		expect(await askOwnerToCancel(eventParts(b), runId, { state: runStateFrom(b, false), waitMs: 60_000 })).toBe('owner-gone');
		expect((await b.storage.runs.get(runId))?.status).toBe('running');
	});

	it('says there was no answer when an owner that holds its lease records nothing in time', async () => {
		const { runId } = await claimedRun(a.storage);
		expect(await askOwnerToCancel(eventParts(b), runId, { state: runStateFrom(b), waitMs: 0 })).toBe('no-answer');
	});

	it('answers at once for a run already ended or unknown, asking no one', async () => {
		const { runId } = await claimedRun(a.storage);
		await a.storage.runs.finish(runId, { status: 'completed', messageCount: 2 }, new Date().toISOString());
		expect(await askOwnerToCancel(eventParts(b), runId, { state: runStateFrom(b), waitMs: 60_000 })).toBe('recorded');
		expect(await askOwnerToCancel(eventParts(b), 'no-such-run', { state: runStateFrom(b), waitMs: 60_000 })).toBe('not-found');
		const { rowCount } = await b.pool.query('SELECT 1 FROM run_cancels WHERE run_id = $1', [runId]);
		expect(rowCount).toBe(0);
	});
});
