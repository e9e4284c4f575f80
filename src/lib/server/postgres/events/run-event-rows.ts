// Internal to events/: the SQL of run_events and how an event is stored in a row.

import type pg from 'pg';
import type { RunEvent } from '../../../protocol';
import { formatSseFrame } from '../../stream/sse-frame';

type Db = pg.Pool | pg.PoolClient;

/** One event as kept: `[event, data]` as JSON; the SSE frame is formed again from it, byte for byte. */
export function encodeEvent(event: RunEvent): string {
	return JSON.stringify([event.event, event.data]);
}

export function decodeEvents(json: string): RunEvent[] {
	return (JSON.parse(json) as [RunEvent['event'], unknown][]).map(([event, data]) => ({ event, data }) as RunEvent);
}

export const frameOf = (event: RunEvent, id: number): string => formatSseFrame(event.event, event.data, id);

/**
 * Appends one batch, events firstId… (firstId null: after the run's last kept event), in one round
 * trip that also NOTIFYs sophos_run_events with the run id (at commit, in the caller's
 * transaction if `db` is in one). False when the run already has its terminal row.
 */
export async function appendRunEvents(
	db: Db,
	batch: { runId: string; firstId: number | null; events: string[]; terminal: boolean; next?: { runId: string; firstId: number } }
): Promise<boolean> {
	const { rows } = await db.query<{ first: string | null }>('SELECT sophos_append_run_events($1, $2, $3, $4, $5, $6, $7) AS first', [
		batch.runId,
		batch.firstId,
		batch.events.length,
		`[${batch.events.join(',')}]`,
		batch.terminal,
		batch.next?.runId ?? null,
		batch.next?.firstId ?? null
	]);
	return rows[0]!.first !== null;
}

export type RunEventRow = { firstId: number; events: RunEvent[]; terminal: boolean; next: { runId: string; firstId: number } | null };

/** The run's rows holding an event after `after`, and its terminal row whatever its ids, in id order. */
export async function readRunEvents(db: Db, runId: string, after: number): Promise<RunEventRow[]> {
	const { rows } = await db.query<{ first_id: string; events: string; terminal: boolean; next_run_id: string | null; next_first_id: string | null }>(
		`SELECT first_id, events, terminal, next_run_id, next_first_id FROM run_events
		 WHERE run_id = $1 AND (last_id > $2 OR terminal) ORDER BY first_id`,
		[runId, after]
	);
	return rows.map((row) => ({
		firstId: Number(row.first_id),
		events: decodeEvents(row.events),
		terminal: row.terminal,
		next: row.next_run_id === null ? null : { runId: row.next_run_id, firstId: Number(row.next_first_id) }
	}));
}

/**
 * The id a run's stream started at: its first kept event, else the id the takeover that started
 * it gave it, else 1.
 */
export async function firstEventIdOf(db: Db, runId: string): Promise<number> {
	const { rows } = await db.query<{ first: string }>(
		`SELECT coalesce(
			(SELECT min(first_id) FROM run_events WHERE run_id = $1),
			(SELECT next_first_id FROM run_events WHERE next_run_id = $1 LIMIT 1),
			1
		) AS first`,
		[runId]
	);
	return Number(rows[0]!.first);
}
