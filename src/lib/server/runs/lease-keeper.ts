import type { OrphanedRun, RunLeases } from '../storage/run-leases';
import { isDatabaseUnavailable } from '../storage/database-errors';
import type { RunRegistry } from './run-registry';
import type { Telemetry } from '../telemetry/telemetry';

/**
 * The heartbeat of an instance that shares its database (storage/app-storage.ts RunLeases): every
 * RUN_LEASE_MS / 3 it renews the leases of the runs it executes, stops here any run another instance
 * has taken over (its writes would be refused anyway), and takes over the runs whose owner's lease
 * has ended, for `recover` to judge. So a dead owner's run is recovered within its lease and one
 * heartbeat. Ticks never overlap; a failed one (the database unreachable) is logged and retried.
 */
export class LeaseKeeper {
	private timer: NodeJS.Timeout | undefined;
	private takingOver = true;
	private stopped = false;
	private tick: Promise<void> = Promise.resolve();

	constructor(
		private readonly parts: {
			leases: RunLeases;
			registry: RunRegistry;
			leaseMs: number;
			recover: (orphans: OrphanedRun[]) => Promise<void>;
			log: (line: string, error?: unknown) => void;
			telemetry?: Pick<Telemetry, 'metrics'>;
		}
	) {}

	start(): void {
		this.schedule();
	}

	/** Draining: this instance takes no more runs over, but keeps its own leases until they end. */
	stopTakingOver(): void {
		this.takingOver = false;
	}

	async stop(): Promise<void> {
		this.stopped = true;
		clearTimeout(this.timer);
		await this.tick;
	}

	private schedule(): void {
		if (this.stopped) return;
		this.timer = setTimeout(() => {
			this.tick = this.beat().finally(() => this.schedule());
		}, Math.max(1, Math.floor(this.parts.leaseMs / 3)));
		this.timer.unref();
	}

	private async beat(): Promise<void> {
		const { leases, registry, log } = this.parts;
		try {
			const running = registry.all();
			const held = await leases.renew(running.map((run) => run.id));
			for (const run of running) {
				if (held.has(run.id)) continue;
				log(`Run ${run.id} was taken over by another instance (its lease ended); stopping it here`);
				run.abort('taken-over');
			}
			if (!this.takingOver || this.stopped) return;
			const orphans = await leases.takeOverExpired();
			if (orphans.length) {
				this.parts.telemetry?.metrics.takenOver.inc(orphans.length);
				log(`Takeover: ${orphans.length} run(s) whose owner's lease ended`);
				await this.parts.recover(orphans);
			}
		} catch (e) {
			this.parts.telemetry?.metrics.leaseRenewalsFailed.inc();
			// An outage fails every beat alike: one line each, not a stack.
			if (isDatabaseUnavailable(e)) log(`Lease heartbeat failed, the database cannot be reached (${(e as Error).message}); retrying`);
			else log('Lease heartbeat failed; retrying', e);
		}
	}
}
