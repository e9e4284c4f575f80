// An answer to a tool server's question sent to another instance than the one running the call:
// carried to the run's owner, taken there once, and its outcome carried back.

import { describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunEvent } from '../../src/lib/protocol';
import { Elicitations } from '../../src/lib/server/elicitation/elicitations.js';
import { askOwnerToAnswer, openQuestions, watchForAnswers } from '../../src/lib/server/postgres/events/elicitation-answers.js';
import { appendRunEvents, encodeEvent } from '../../src/lib/server/postgres/events/run-event-rows.js';
import { Mailbox } from '../support/mailbox.js';
import { claimedRun, eventParts, runStateFrom, useInstances } from '../support/pg-instances.js';

const instances = useInstances('answers');
const { a, b } = instances;

const FORM = { mode: 'form' as const, message: 'Who is asking?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] } };

/** A run on instance A whose call has asked a question, held in A's registry. */
async function questionOnA() {
	const { conversationId, runId } = await claimedRun(a.storage);
	const events = new Mailbox<RunEvent>();
	const registry = new Elicitations({ timeoutMs: 600_000, now: () => new Date().toISOString(), publish: (_run, e) => events.post(e), log: () => {} });
	const results: ElicitResult[] = [];
	const result = registry.ask({ conversation: conversationId, run: runId, server: 'test', tool: 'test__ask' }, FORM, new AbortController().signal).then((r) => {
		results.push(r);
		return r;
	});
	const asked = await events.next();
	if (asked.event !== 'elicitation') throw new Error(`expected the question, got ${asked.event}`);
	return { conversationId, runId, id: asked.data.elicitation.id, asked, registry, result, results, watch: () => watchForAnswers(eventParts(a), runId, (id, answer) => registry.answer(runId, id, answer)) };
}

const send = (run: { runId: string }, id: string, answer: Parameters<typeof askOwnerToAnswer>[3], waitMs = 60_000) =>
	askOwnerToAnswer(eventParts(b), run.runId, id, answer, { state: runStateFrom(b), waitMs });

const rowsLeft = async () => Number((await a.pool.query<{ n: string }>('SELECT count(*) AS n FROM elicitation_answers')).rows[0]!.n);

describe('an answer through another instance', () => {
	it('reaches the owner, which gives it to the call once; a second answer is closed, an unknown id not found, bad content names the field', async () => {
		const run = await questionOnA();
		const unwatch = run.watch();
		expect(await send(run, run.id, { action: 'accept', content: { name: 7 } })).toMatchObject({ refused: 'invalid', field: 'name' });
		expect(await send(run, '00000000-0000-4000-8000-000000000000', { action: 'cancel' })).toEqual({ refused: 'not-found' });
		expect(await send(run, run.id, { action: 'accept', content: { name: 'Ada' } })).toEqual({ action: 'accept' });
		expect(await run.result).toEqual({ action: 'accept', content: { name: 'Ada' } });
		expect(await send(run, run.id, { action: 'decline' })).toEqual({ refused: 'closed' });
		expect(run.results).toHaveLength(1);
		expect(await rowsLeft()).toBe(0);
		unwatch();
	});

	it('reaches an owner whose bus was away when the answer was announced, once it is back', async () => {
		const run = await questionOnA();
		const unwatch = run.watch();
		const announced = new Mailbox<string>();
		b.bus.subscribe('sophos_elicitation_answer', run.runId, { notified: () => announced.post('sent'), reconnected: () => {} });
		await b.pool.query('SELECT 1');
		await instances.allowConnections(false);
		await instances.terminate('bus-a');
		expect(await a.logs.nextMatching(/reconnect failed/)).toBeTruthy();
		const answer = send(run, run.id, { action: 'decline' });
		await announced.next();
		expect(run.results).toEqual([]);
		await instances.allowConnections(true);
		expect(await answer).toEqual({ action: 'decline' });
		expect(await run.result).toEqual({ action: 'decline' });
		unwatch();
	});

	it('a run that has ended is answered from its kept events: closed for a question it asked, not found for one it did not', async () => {
		const run = await questionOnA();
		await appendRunEvents(a.pool, { runId: run.runId, firstId: 1, events: [encodeEvent(run.asked)], terminal: false });
		await a.storage.runs.finish(run.runId, { status: 'completed', messageCount: 2 }, new Date().toISOString());
		expect(await send(run, run.id, { action: 'decline' })).toEqual({ refused: 'closed' });
		expect(await send(run, '00000000-0000-4000-8000-000000000000', { action: 'decline' })).toEqual({ refused: 'not-found' });
		expect(run.results).toEqual([]);
		expect(await rowsLeft()).toBe(0);
	});

	it('a run whose owner\'s lease has ended took its questions with it: nothing is left for a takeover to answer', async () => {
		const run = await questionOnA();
		const answer = await askOwnerToAnswer(eventParts(b), run.runId, run.id, { action: 'decline' }, { state: runStateFrom(b, false), waitMs: 60_000 });
		expect(answer).toEqual({ refused: 'not-found' });
		expect(await rowsLeft()).toBe(0);
	});

	it('an owner that holds its lease and takes nothing in time: no-answer, and the answer is withdrawn so it is never taken later', async () => {
		const run = await questionOnA();
		expect(await send(run, run.id, { action: 'decline' }, 0)).toEqual({ refused: 'no-answer' });
		expect(await rowsLeft()).toBe(0);
		const unwatch = run.watch();
		expect(await send(run, run.id, { action: 'accept', content: { name: 'Ada' } })).toEqual({ action: 'accept' });
		expect(run.results).toEqual([{ action: 'accept', content: { name: 'Ada' } }]);
		unwatch();
	});

	it('another instance lists the questions the run\'s kept events show open, oldest first', async () => {
		const run = await questionOnA();
		for (let i = 0; i < 2; i += 1) void run.registry.ask({ conversation: run.conversationId, run: run.runId, server: 'test', tool: 'test__ask' }, FORM, new AbortController().signal);
		const [, q2, q3] = run.registry.pending(run.conversationId);
		const kept = (...events: RunEvent[]) => appendRunEvents(a.pool, { runId: run.runId, firstId: null, events: events.map(encodeEvent), terminal: false });
		await kept(run.asked, { event: 'token', data: 'x' }, { event: 'elicitation', data: { conversation: run.conversationId, run: run.runId, elicitation: q2! } });
		await kept({ event: 'elicitation', data: { conversation: run.conversationId, run: run.runId, elicitation: q3! } });
		expect(await openQuestions(b.pool, run.runId)).toEqual([run.asked.data.elicitation, q2, q3]);
		await kept({ event: 'elicitation-closed', data: { conversation: run.conversationId, run: run.runId, id: q2!.id, action: 'decline' } });
		expect(await openQuestions(b.pool, run.runId)).toEqual([run.asked.data.elicitation, q3]);
		expect(await openQuestions(b.pool, 'no-such-run')).toEqual([]);
	});

	it('a row no Sophos could have written is refused as unknown, and the call is not answered', async () => {
		const run = await questionOnA();
		const unwatch = run.watch();
		const taken = new Mailbox<string>();
		b.bus.subscribe('sophos_elicitation_outcome', 'forged', { notified: () => taken.post('taken'), reconnected: () => {} });
		await a.pool.query(
			`WITH forged AS (INSERT INTO elicitation_answers (id, run_id, elicitation_id, answer) VALUES ('forged', $1, $2, '{"action":"approve"}') RETURNING run_id)
			 SELECT pg_notify('sophos_elicitation_answer', run_id) FROM forged`,
			[run.runId, run.id]
		);
		await taken.next();
		expect((await a.pool.query('SELECT outcome FROM elicitation_answers WHERE id = $1', ['forged'])).rows[0].outcome).toBe('{"refused":"not-found"}');
		expect(run.results).toEqual([]);
		await a.pool.query(`DELETE FROM elicitation_answers WHERE id = 'forged'`);
		unwatch();
	});
});
