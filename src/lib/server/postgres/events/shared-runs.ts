// The run stream across instances on PostgreSQL, as the runtime uses it (storage/engine.ts SharedRuns):
// the notify bus, each run's event writer, cancel and answer watches, remote readers (counted for
// its owner), cancels, answers to its questions and readers' leaving carried to the owner, the end a
// takeover keeps, and the sweep of kept events.

import type pg from 'pg';
import type { RunStatus } from '../../../protocol';
import { NotifyBus } from '../notify-bus.js';
import { remoteEventResponse } from './remote-event-response.js';
import { askOwnerToCancel, watchForCancel, type RunState } from './run-cancel.js';
import { askOwnerToAnswer, openQuestions, watchForAnswers } from './elicitation-answers.js';
import { RunEventSweeper } from './run-event-retention.js';
import { RunEventWriter } from './run-event-writer.js';
import { hasRemoteReaders, RemoteReaders, watchForUnfollowed } from './run-readers.js';
import { endTakenOverRun } from './run-takeover.js';
import type { SharedRuns } from '../../storage/storage-engine';

export async function startSharedRuns(
	pool: pg.Pool,
	options: { client: pg.ClientConfig; keepMs: number; leaseMs: number; log: (line: string) => void }
): Promise<SharedRuns> {
	const { log } = options;
	const bus = new NotifyBus({ client: options.client, log });
	await bus.start();
	const sweeper = new RunEventSweeper(pool, { keepMs: options.keepMs, log });
	await sweeper.start();
	const parts = { pool, bus, log };
	// A reader's row outlives two of the owners' leases without renewal: an instance that lost
	// PostgreSQL for less than that keeps its readers counted.
	const readers = new RemoteReaders(parts, 2 * options.leaseMs);
	const remote = { pool, bus, counts: new Map<string, number>(), readers, log };
	const writers = new Set<Promise<void>>();
	const state = async (id: string): Promise<RunState | undefined> => {
		const { rows } = await pool.query<{ status: RunStatus; alive: boolean }>(
			`SELECT status, coalesce(lease_until > now(), false) AS alive FROM runs WHERE id = $1`,
			[id]
		);
		return rows[0] && { status: rows[0].status, ownerAlive: rows[0].alive };
	};
	return {
		attach(run) {
			const writer = RunEventWriter.attach(pool, run.log, { runId: run.id, log });
			writers.add(writer.done);
			void writer.done.finally(() => writers.delete(writer.done));
			const unwatch = [
				watchForCancel(parts, run.id, () => run.abort()),
				watchForAnswers(parts, run.id, run.answer),
				watchForUnfollowed(parts, run.id, (othersLeft) => othersLeft || run.cancelIfUnfollowed())
			];
			return async () => {
				for (const u of unwatch) u();
				await writer.done;
			};
		},
		follow: (runId, lastEventId, signal, responseOptions, cancelOnLeave) =>
			remoteEventResponse(remote, runId, lastEventId, signal, responseOptions, cancelOnLeave),
		followedElsewhere: (runId) => hasRemoteReaders(pool, runId),
		// Long enough for the owner to reach its outcome, or for its lease to end and a takeover to record one.
		cancel: (runId) => askOwnerToCancel(parts, runId, { state, waitMs: 2 * options.leaseMs }),
		answer: (runId, elicitationId, answer) => askOwnerToAnswer(parts, runId, elicitationId, answer, { state, waitMs: 2 * options.leaseMs }),
		openQuestions: (runId) => openQuestions(pool, runId),
		async ended(runId, event) {
			await endTakenOverRun(pool, { runId, event });
		},
		async carriedOn(runId, event, successorRunId) {
			return (await endTakenOverRun(pool, { runId, event, successorRunId })).successorFirstEventId!;
		},
		async close() {
			await Promise.allSettled([...writers]);
			readers.close();
			await sweeper.close();
			await bus.close();
		}
	};
}
