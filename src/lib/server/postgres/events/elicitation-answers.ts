// An answer to a tool server's question (MCP elicitation) sent to any instance, carried to the
// instance that runs the call and holds the question, and its outcome carried back.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import {
	ElicitationAnswerOutcomeSchema,
	ElicitationAnswerSchema,
	EVENT_DATA,
	type ElicitationAnswer,
	type ElicitationAnswerOutcome,
	type PendingElicitation
} from '../../../protocol';
import type { NotifyBus } from '../notify-bus';
import { inTransaction } from '../transaction.js';
import type { RunState } from './run-cancel.js';
import type { ForwardedAnswer } from '../../storage/storage-engine';

type Parts = { pool: pg.Pool; bus: NotifyBus; log: (message: string) => void };

/** Answers the owner side gives, for a question of the run it executes. */
export type TakeAnswer = (elicitationId: string, answer: ElicitationAnswer) => ElicitationAnswerOutcome;

/**
 * The owner's side: while a run executes on this instance, hands each answer any instance sends
 * for one of its questions to `take`, once, and writes back what it came to. An answer sent while
 * the bus was away is a row, read again when it is back. Nothing is read as the watch begins: the
 * run asks no question before it, so no answer can be waiting (which spares every run a round trip).
 * Each answer is taken in a transaction that holds its row, so two reads (a NOTIFY and a reconnect)
 * never take one twice, and the sender, which deletes the row when it is done, waits for that
 * transaction rather than giving up on an answer being taken. Returns the unwatch, for the run's `finally`.
 */
export function watchForAnswers(parts: Parts, runId: string, take: TakeAnswer): () => void {
	const check = () => {
		takeWaiting(parts.pool, runId, take).catch((error: Error) => parts.log(`Run ${runId}: taking answers to its questions failed (${error.message})`));
	};
	return parts.bus.subscribe('sophos_elicitation_answer', runId, { notified: check, reconnected: check });
}

async function takeWaiting(pool: pg.Pool, runId: string, take: TakeAnswer): Promise<void> {
	await inTransaction(pool, async (client) => {
		const { rows } = await client.query<{ id: string; elicitation_id: string; answer: string }>(
			`SELECT id, elicitation_id, answer FROM elicitation_answers WHERE run_id = $1 AND outcome IS NULL FOR UPDATE SKIP LOCKED`,
			[runId]
		);
		for (const row of rows) {
			// What comes back from the database is input too: a row no Sophos could have written is refused as unknown.
			const answer = ElicitationAnswerSchema.safeParse(parseJson(row.answer));
			const outcome: ElicitationAnswerOutcome = answer.success ? take(row.elicitation_id, answer.data) : { refused: 'not-found' };
			await client.query(
				`WITH taken AS (UPDATE elicitation_answers SET outcome = $2 WHERE id = $1 RETURNING id)
				 SELECT pg_notify('sophos_elicitation_outcome', id) FROM taken`,
				[row.id, JSON.stringify(outcome)]
			);
		}
	});
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/** Heard while waiting; null: the run ended or its owner went, and with them its questions. */
type Heard = ForwardedAnswer | null;

/**
 * The sending side: keeps the answer as a row and NOTIFYs sophos_elicitation_answer with the run
 * id, then waits for the owner's outcome (NOTIFYed on sophos_elicitation_outcome with the row's
 * id), for the run to end (heard on its events), or for `waitMs`. The row is deleted at the end;
 * an outcome written meanwhile is the answer whatever else was heard. A run that ended first is
 * answered from its kept events: `closed` if it asked this question, `not-found` if not.
 */
export async function askOwnerToAnswer(
	parts: Parts,
	runId: string,
	elicitationId: string,
	answer: ElicitationAnswer,
	options: { state: (runId: string) => Promise<RunState | undefined>; waitMs: number }
): Promise<ForwardedAnswer> {
	const id = randomUUID();
	let resolve!: (answer: Heard) => void;
	const answered = new Promise<Heard>((r) => (resolve = r));
	const logged = (check: () => Promise<unknown>) => () =>
		void check().catch((error: Error) => parts.log(`Run ${runId}: carrying an answer to its question failed (${error.message})`));
	const readOutcome = async () => {
		const { rows } = await parts.pool.query<{ outcome: string | null }>('SELECT outcome FROM elicitation_answers WHERE id = $1', [id]);
		if (rows[0]?.outcome) resolve(outcomeOf(rows[0].outcome));
	};
	const checkRun = async () => {
		const state = await options.state(runId);
		if (!state || state.status !== 'running' || !state.ownerAlive) resolve(null);
	};
	const unsubscribe = [
		parts.bus.subscribe('sophos_elicitation_outcome', id, { notified: logged(readOutcome), reconnected: logged(readOutcome) }),
		parts.bus.subscribe('sophos_run_events', runId, { notified: logged(checkRun), reconnected: logged(() => Promise.all([readOutcome(), checkRun()])) })
	];
	const timer = setTimeout(() => resolve({ refused: 'no-answer' }), options.waitMs);
	let heard: Heard;
	try {
		const { rowCount } = await parts.pool.query(
			`WITH sent AS (
				INSERT INTO elicitation_answers (id, run_id, elicitation_id, answer)
				SELECT $1, id, $3, $4 FROM runs WHERE id = $2 AND status = 'running'
				RETURNING run_id
			) SELECT pg_notify('sophos_elicitation_answer', run_id) FROM sent`,
			[id, runId, elicitationId, JSON.stringify(answer)]
		);
		if (rowCount) await checkRun();
		else resolve(null);
		heard = await answered;
	} finally {
		clearTimeout(timer);
		for (const u of unsubscribe) u();
	}
	// Waits for an owner taking it now (its transaction holds the row), so an answer taken is never reported as not.
	const { rows } = await parts.pool.query<{ outcome: string | null }>('DELETE FROM elicitation_answers WHERE id = $1 RETURNING outcome', [id]);
	if (rows[0]?.outcome) return outcomeOf(rows[0].outcome);
	if (heard) return heard;
	// Its owner's memory of the questions it closed is out of reach, but the run's kept events say whether it asked this one.
	return (await askedIn(parts.pool, runId, elicitationId)) ? { refused: 'closed' } : { refused: 'not-found' };
}

async function askedIn(pool: pg.Pool, runId: string, elicitationId: string): Promise<boolean> {
	const asked = JSON.stringify([['elicitation', { elicitation: { id: elicitationId } }]]);
	const { rowCount } = await pool.query('SELECT 1 FROM run_events WHERE run_id = $1 AND events::jsonb @> $2::jsonb LIMIT 1', [runId, asked]);
	return rowCount !== 0;
}

const outcomeOf = (json: string): ElicitationAnswerOutcome => ElicitationAnswerOutcomeSchema.parse(JSON.parse(json));

/**
 * The questions a run's kept events show asked and not closed yet, oldest first: what another
 * instance lists in the conversation's detail while the owner holds them. Only the events of those
 * two kinds leave the database.
 */
export async function openQuestions(pool: pg.Pool, runId: string): Promise<PendingElicitation[]> {
	const { rows } = await pool.query<{ event: [string, unknown] }>(
		`SELECT e.event FROM run_events r CROSS JOIN LATERAL jsonb_array_elements(r.events::jsonb) WITH ORDINALITY AS e(event, n)
		 WHERE r.run_id = $1 AND e.event->>0 IN ('elicitation', 'elicitation-closed') ORDER BY r.first_id, e.n`,
		[runId]
	);
	const open = new Map<string, PendingElicitation>();
	for (const [name, data] of rows.map((r) => r.event)) {
		if (name === 'elicitation') {
			const asked = EVENT_DATA.elicitation.safeParse(data);
			if (asked.success) open.set(asked.data.elicitation.id, asked.data.elicitation);
		} else {
			const closed = EVENT_DATA['elicitation-closed'].safeParse(data);
			if (closed.success) open.delete(closed.data.id);
		}
	}
	return [...open.values()];
}
