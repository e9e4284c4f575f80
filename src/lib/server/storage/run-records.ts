// Runs as the storage contract speaks of them: an outcome to record, and the row every engine selects.

import type { InterruptCause, RunFailureCode, RunRecord, RunStatus, RunTrigger } from '../../protocol';

/** What a run's end records. */
export type RunOutcome = {
	status: Exclude<RunStatus, 'running'>;
	/** Why a run failed, or what interrupted it. */
	error?: { code: RunFailureCode | InterruptCause; message: string };
	messageCount: number;
};

/** A run row as every engine selects it (timestamps as ISO text). */
export type RunRow = {
	id: string;
	status: RunStatus;
	trigger: RunTrigger;
	input: string | null;
	error_code: string | null;
	error_message: string | null;
	started_at: string;
	finished_at: string | null;
};

export function toRecord(row: RunRow): RunRecord {
	return {
		id: row.id,
		status: row.status,
		trigger: row.trigger,
		input: row.input,
		error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
		startedAt: row.started_at,
		finishedAt: row.finished_at
	};
}
