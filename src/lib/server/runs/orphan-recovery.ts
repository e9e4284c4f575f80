import type { RunLeases } from '../storage/run-leases';
import type { SharedRuns } from '../storage/storage-engine';
import type { Log } from '../telemetry/log-formatter';
import type { Telemetry } from '../telemetry/telemetry';
import { autoResume, type AutoResumeParts } from './auto-resume';
import { LeaseKeeper } from './lease-keeper';
import type { ThreadWorkSources } from './read-thread-work';
import type { RunRegistry } from './run-registry';
import { endRecoveredRuns, orphansAtStart, recoverRuns, type RecoveredRun } from './run-recovery';
import type { RunService } from './run-service';

export type StartRecoveryParts = ThreadWorkSources & {
	leases: Pick<RunLeases, 'takeOverAtStart'> | null;
	now: () => string;
	telemetry: Pick<Telemetry, 'recovered' | 'metrics'>;
	log: Log;
};

/** At start, before any run starts: the runs a dead process left (orphansAtStart), their outcomes recorded. */
export async function recoverAtStart(parts: StartRecoveryParts): Promise<RecoveredRun[]> {
	const orphans = await orphansAtStart(parts.leases, parts.storage.runs);
	if (parts.leases) parts.telemetry.metrics.takenOver.inc(orphans.length);
	const recovered = await recoverRuns(parts, orphans);
	const interrupted = recovered.filter((run) => run.unfinished).length;
	if (interrupted) parts.log(`Recovery: ${interrupted} run(s) left running were marked interrupted`);
	return recovered;
}

export type KeepRecoveringParts = AutoResumeParts & {
	storage: StartRecoveryParts['storage'];
	runService: Pick<RunService, 'startWaiting'>;
	/** Null: one process owns every run, and no other dies holding one. */
	leases: RunLeases | null;
	shared: SharedRuns | null;
	registry: RunRegistry;
	/** AUTO_RESUME */
	autoResume: boolean;
	/** RUN_LEASE_MS */
	leaseMs: number;
	now: () => string;
	telemetry: StartRecoveryParts['telemetry'];
};

/**
 * Once runs may start: the runs recovered at start ended (or resumed, with AUTO_RESUME), and on a
 * shared database the lease keeper started, which recovers the runs of instances that die later
 * the same way. The keeper is the runtime's to stop.
 */
export async function keepRecovering(recovered: readonly RecoveredRun[], parts: KeepRecoveringParts): Promise<LeaseKeeper | null> {
	const { shared, leases } = parts;
	const endParts = {
		resume: parts.autoResume ? (run: RecoveredRun) => autoResume(run, parts) : null,
		ended: shared && ((runId: string, event: RecoveredRun['end']) => shared.ended(runId, event))
	};
	await endRecoveredRuns(recovered, endParts);
	const keeper =
		leases &&
		new LeaseKeeper({
			leases,
			registry: parts.registry,
			leaseMs: parts.leaseMs,
			log: parts.log,
			telemetry: parts.telemetry,
			async recover(taken) {
				await endRecoveredRuns(await recoverRuns(parts, taken), endParts);
				await parts.runService.startWaiting();
			}
		});
	keeper?.start();
	return keeper;
}
