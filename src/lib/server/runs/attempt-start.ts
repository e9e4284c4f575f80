import type { RunRecord } from '../../protocol';
import type { AttemptStart } from '../telemetry/telemetry';

/** Triggers whose run carries on the conversation's previous run: after a crash, a takeover or a person's decision. */
const CONTINUING = new Set(['resume', 'auto-resume', 'approval']);

/**
 * Pure. What telemetry is told as a run attempt starts, from the conversation's runs (newest
 * first; the run and the one before it are enough): its trigger, and for a resume or a decision the run before it, whose span it links to.
 */
export function attemptStart(runId: string, conversationId: string, runs: readonly Pick<RunRecord, 'id' | 'trigger'>[]): AttemptStart {
	const at = runs.findIndex((r) => r.id === runId);
	const trigger = runs[at]?.trigger ?? 'message';
	const previous = at >= 0 && CONTINUING.has(trigger) ? (runs[at + 1]?.id ?? null) : null;
	return { runId, conversationId, trigger, continues: previous };
}
