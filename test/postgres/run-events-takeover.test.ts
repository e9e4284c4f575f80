// A run whose owner died, followed from another instance across the takeover: its end kept by the
// instance that takes it over, and the run that resumes it followed on the same stream.

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/lib/protocol/index.js';
import { RunEventWriter } from '../../src/lib/server/postgres/events/run-event-writer.js';
import { remoteEventResponse } from '../../src/lib/server/postgres/events/remote-event-response.js';
import { endTakenOverRun } from '../../src/lib/server/postgres/events/run-takeover.js';
import { EventLog } from '../../src/lib/server/stream/event-log.js';
import { liveEventResponse, type LiveResponseOptions } from '../../src/lib/server/stream/sse-response.js';
import { Mailbox } from '../support/mailbox.js';
import { asThePageSeesIt, itemTexts } from '../support/page-view.js';
import { claimedRun, endLease, remoteParts, useInstances } from '../support/pg-instances.js';

const instances = useInstances('takeover');
const { a, b } = instances;

const OPTIONS: LiveResponseOptions = { maxFollowers: 4, backlogLimitBytes: 1 << 20, onDrop: () => {} };
const signal = () => new AbortController().signal;

const interrupted = (conversation: string, run: string): RunEvent => ({
	event: 'end',
	data: { conversation, run, status: 'interrupted', cause: 'PROCESS_EXITED' }
});


/** A run on instance A that has kept a partial answer, then stops publishing: its owner died. */
async function runThatDies(): Promise<{ conversationId: string; runId: string; log: EventLog; writer: RunEventWriter; logs: Mailbox<string> }> {
	const { conversationId, runId } = await claimedRun(a.storage);
	const kept = new Mailbox<string>();
	const unsubscribe = b.bus.subscribe('sophos_run_events', runId, { notified: () => kept.post('batch'), reconnected: () => {} });
	const log = new EventLog(1000);
	const logs = new Mailbox<string>();
	const writer = RunEventWriter.attach(a.pool, log, { runId, log: (m) => logs.post(m) });
	log.publish({ event: 'trace', data: { step: 1, name: 'agent', node: 'agent', event: 'enter' } });
	log.publish({ event: 'token', data: 'Answer af' });
	await kept.next();
	unsubscribe();
	return { conversationId, runId, log, writer, logs };
}

/** Instance B takes over a run whose owner's lease ended, as its heartbeat does. */
async function takeOver(runId: string): Promise<void> {
	await endLease(b, runId);
	expect((await b.leases.takeOverExpired()).map((run) => run.id)).toContain(runId);
}

/** What instance B does when the lease of A's run has ended and AUTO_RESUME allows a resume. */
async function takeOverAndResume(conversationId: string, runId: string) {
	await takeOver(runId);
	await b.storage.runs.finish(runId, { status: 'interrupted', error: { code: 'PROCESS_EXITED', message: 'owner died' }, messageCount: 1 }, new Date().toISOString());
	const successor = randomUUID();
	expect(await b.storage.runs.claim(conversationId, successor, new Date().toISOString(), 'auto-resume', null)).toBe('claimed');
	const { ended, successorFirstEventId } = await endTakenOverRun(b.pool, { runId, event: interrupted(conversationId, runId), successorRunId: successor });
	expect(ended).toBe(true);
	const log = new EventLog(1000, undefined, successorFirstEventId!);
	const writer = RunEventWriter.attach(b.pool, log, { runId: successor, log: () => {} });
	return { successor, successorFirstEventId: successorFirstEventId!, log, writer };
}

describe('following across a takeover', () => {
	it('goes on with the run that resumes it, on one stream the page reads as one run, ended by the resumed run', async () => {
		const dead = await runThatDies();
		const following = await remoteEventResponse(remoteParts(b), dead.runId, 0, signal(), OPTIONS);
		const resumed = await takeOverAndResume(dead.conversationId, dead.runId);
		expect(resumed.successorFirstEventId).toBe(2 ** 32 + 1);
		resumed.log.publish({ event: 'trace', data: { step: 1, name: 'agent', node: 'agent', event: 'enter' } });
		resumed.log.publish({ event: 'token', data: 'Answer after the crash.' });
		resumed.log.publish({ event: 'end', data: { conversation: dead.conversationId, run: resumed.successor, status: 'completed' } });
		await resumed.writer.done;

		const text = await following.text();
		expect(text).not.toContain('interrupted');
		const live = asThePageSeesIt(text);
		expect(itemTexts(live)).toEqual(['Answer af', 'Answer after the crash.']);
		expect(live.outcome).toEqual({ kind: 'end', status: 'completed', run: resumed.successor });

		// A page that held an id the dead owner sent and never kept, back on any instance: the whole
		// resumed run, from PostgreSQL as from the resumed run's own log.
		const fromKept = await (await remoteEventResponse(remoteParts(a), dead.runId, 50, signal(), OPTIONS)).text();
		expect(fromKept).toBe(await liveEventResponse(resumed.log, 50, signal(), OPTIONS).text());
		expect(itemTexts(asThePageSeesIt(fromKept))).toEqual(['Answer after the crash.']);
	});

	it('keeps the dead owner from adding to the run once it is taken over', async () => {
		const dead = await runThatDies();
		await takeOverAndResume(dead.conversationId, dead.runId);
		// The owner was only paused: it wakes and goes on publishing.
		dead.log.publish({ event: 'token', data: 'ter the pause' });
		expect(await dead.logs.nextMatching(/ended elsewhere/)).toMatch(/no longer kept/);
		await dead.writer.done;
		const { rows } = await a.pool.query('SELECT first_id, terminal FROM run_events WHERE run_id = $1 ORDER BY first_id', [dead.runId]);
		expect(rows.map((r) => [Number(r.first_id), r.terminal])).toEqual([
			[1, false],
			[3, true]
		]);
	});

	it('ends the stream with the kept interruption when nothing resumes the run, whatever id the reader holds', async () => {
		const dead = await runThatDies();
		const following = await remoteEventResponse(remoteParts(b), dead.runId, 0, signal(), OPTIONS);
		await takeOver(dead.runId);
		await b.storage.runs.finish(dead.runId, { status: 'interrupted', error: { code: 'PROCESS_EXITED', message: 'owner died' }, messageCount: 1 }, new Date().toISOString());
		expect(await endTakenOverRun(b.pool, { runId: dead.runId, event: interrupted(dead.conversationId, dead.runId) })).toEqual({ ended: true, successorFirstEventId: null });
		const live = asThePageSeesIt(await following.text());
		expect(itemTexts(live)).toEqual(['Answer af']);
		expect(live.outcome).toEqual({ kind: 'end', status: 'interrupted', run: dead.runId, cause: 'PROCESS_EXITED' });
		const late = asThePageSeesIt(await (await remoteEventResponse(remoteParts(a), dead.runId, 40, signal(), OPTIONS)).text());
		expect(late.outcome).toEqual({ kind: 'end', status: 'interrupted', run: dead.runId, cause: 'PROCESS_EXITED' });
		// A second takeover finds the stream ended.
		expect((await endTakenOverRun(a.pool, { runId: dead.runId, event: interrupted(dead.conversationId, dead.runId) })).ended).toBe(false);
	});

	it('numbers each run of a chain of takeovers above the one before, even one that kept nothing', async () => {
		const dead = await runThatDies();
		const first = await takeOverAndResume(dead.conversationId, dead.runId);
		// The resumed run dies too, before it kept anything, and A takes it over.
		await endLease(a, first.successor);
		await a.leases.takeOverExpired();
		await a.storage.runs.finish(first.successor, { status: 'interrupted', error: { code: 'PROCESS_EXITED', message: 'died' }, messageCount: 1 }, new Date().toISOString());
		const third = randomUUID();
		expect(await a.storage.runs.claim(dead.conversationId, third, new Date().toISOString(), 'auto-resume', null)).toBe('claimed');
		const second = await endTakenOverRun(a.pool, { runId: first.successor, event: interrupted(dead.conversationId, first.successor), successorRunId: third });
		expect(second.successorFirstEventId).toBe(2 ** 33 + 1);
		const { rows } = await a.pool.query('SELECT first_id FROM run_events WHERE run_id = $1', [first.successor]);
		expect(rows.map((r) => Number(r.first_id))).toEqual([2 ** 32 + 1]);
	});

	it('refuses a log that would start below id 1', () => {
		expect(() => new EventLog(10, undefined, 0)).toThrow(/Invalid first event id: 0/);
	});

	it('refuses to end a run with an event that is not terminal', async () => {
		const { runId } = await claimedRun(a.storage);
		await expect(endTakenOverRun(a.pool, { runId, event: { event: 'token', data: 'x' } })).rejects.toThrow(/terminal event, not token/);
	});
});
