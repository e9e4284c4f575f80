// Retention of kept run events: gone RUN_EVENTS_KEEP_MS after their run ended, whoever ran it.

import { describe, expect, it } from 'vitest';
import { appendRunEvents, encodeEvent } from '../../src/lib/server/postgres/events/run-event-rows.js';
import { remoteEventResponse } from '../../src/lib/server/postgres/events/remote-event-response.js';
import { RunEventWriter } from '../../src/lib/server/postgres/events/run-event-writer.js';
import { endOrphanedStreams, RunEventSweeper, sweepRunEvents } from '../../src/lib/server/postgres/events/run-event-retention.js';
import { EventLog } from '../../src/lib/server/stream/event-log.js';
import { claimedRun, remoteParts, useInstances } from '../support/pg-instances.js';

const instances = useInstances('retention');
const { a, b } = instances;

const HOUR = 3_600_000;

/** A run that kept a few events and, unless `endedAgoMs` is null, ended that long ago. */
async function keptRun(endedAgoMs: number | null): Promise<string> {
	const { conversationId, runId } = await claimedRun(a.storage);
	if (endedAgoMs === null) {
		await appendRunEvents(a.pool, { runId, firstId: 1, events: [encodeEvent({ event: 'token', data: 'kept' })], terminal: false });
		return runId;
	}
	const log = new EventLog(100);
	const writer = RunEventWriter.attach(a.pool, log, { runId, log: () => {} });
	log.publish({ event: 'token', data: 'kept' });
	await a.storage.runs.finish(runId, { status: 'completed', messageCount: 2 }, new Date(Date.now() - endedAgoMs).toISOString());
	log.publish({ event: 'end', data: { conversation: conversationId, run: runId, status: 'completed' } });
	await writer.done;
	await a.pool.query('INSERT INTO run_cancels (run_id) VALUES ($1)', [runId]);
	// An answer its sender left behind (it died waiting).
	await a.pool.query(`INSERT INTO elicitation_answers (id, run_id, elicitation_id, answer) VALUES (gen_random_uuid(), $1, 'q', '{"action":"cancel"}')`, [runId]);
	return runId;
}

async function keptRows(runId: string): Promise<number> {
	const events = await a.pool.query('SELECT 1 FROM run_events WHERE run_id = $1', [runId]);
	const cancels = await a.pool.query('SELECT 1 FROM run_cancels WHERE run_id = $1', [runId]);
	const answers = await a.pool.query('SELECT 1 FROM elicitation_answers WHERE run_id = $1', [runId]);
	return (events.rowCount ?? 0) + (cancels.rowCount ?? 0) + (answers.rowCount ?? 0);
}

describe('run event retention', () => {
	it('deletes the events, cancel requests and answers left behind of runs ended longer ago than keepMs, from any instance', async () => {
		const old = await keptRun(2 * HOUR);
		const recent = await keptRun(0);
		const running = await keptRun(null);
		expect(await sweepRunEvents(b.pool, HOUR)).toBeGreaterThanOrEqual(1);
		expect(await keptRows(old)).toBe(0);
		expect(await keptRows(recent)).toBeGreaterThan(0);
		expect(await keptRows(running)).toBeGreaterThan(0);
	});

	it('ends the stream of a run whose owner recorded its outcome and died before keeping its end', async () => {
		const { conversationId, runId } = await claimedRun(a.storage);
		await appendRunEvents(a.pool, { runId, firstId: 1, events: [encodeEvent({ event: 'token', data: 'partial' })], terminal: false });
		const reader = await remoteEventResponse(remoteParts(b), runId, 0, new AbortController().signal, {
			maxFollowers: 2,
			backlogLimitBytes: 1 << 20,
			onDrop: () => {}
		});
		const recent = await claimedRun(a.storage);
		await appendRunEvents(a.pool, { runId: recent.runId, firstId: 1, events: [encodeEvent({ event: 'token', data: 'x' })], terminal: false });
		await a.storage.runs.finish(recent.runId, { status: 'completed', messageCount: 2 }, new Date().toISOString());
		await a.storage.runs.finish(runId, { status: 'failed', messageCount: 1 }, new Date(Date.now() - HOUR).toISOString());
		expect(await endOrphanedStreams(b.pool, 60_000)).toBe(1);
		expect(await reader.text()).toBe(
			`retry: 1000\n\nid: 1\nevent: token\ndata: "partial"\n\nid: 2\nevent: end\ndata: {"conversation":"${conversationId}","run":"${runId}","status":"failed"}\n\n`
		);
		expect(await endOrphanedStreams(b.pool, 60_000)).toBe(0);
	});

	it('sweeps at start, once only, and close completes', async () => {
		const old = await keptRun(2 * HOUR);
		const sweeper = new RunEventSweeper(b.pool, { keepMs: HOUR, log: () => {} });
		await sweeper.start();
		expect(await keptRows(old)).toBe(0);
		await expect(sweeper.start()).rejects.toThrow(/already been started/);
		await sweeper.close();
	});
});
