/** A run whose owner died, now this instance's to judge (runs/run-recovery.ts). */
export type OrphanedRun = { id: string; conversationId: string };

/**
 * Run ownership where several instances share the database: each `running` run is owned by the
 * instance that claimed it, under a lease (RUN_LEASE_MS) the owner renews by heartbeat. Every write
 * of a run (its outcome, checkpoints, journal entries, approval requests) is refused unless this
 * instance still owns it, so an instance that was paused past its lease writes nothing once another
 * has taken the run over.
 */
export interface RunLeases {
	/**
	 * Extends the leases of these runs (the ones this instance executes) where it still owns them,
	 * running; returns those. A run it owns but no longer executes (its outcome could not be written,
	 * the database away) is left to expire, so recovery judges it instead of it holding its
	 * conversation for as long as this instance lives.
	 */
	renew(runIds: readonly string[]): Promise<ReadonlySet<string>>;
	/** Takes over every running run whose lease has ended, whoever owned it; each is taken by one instance. */
	takeOverExpired(): Promise<OrphanedRun[]>;
	/**
	 * At start, before any run: takeOverExpired, and the runs a previous process under this
	 * instance's name left running (it is dead, since this one has its name).
	 */
	takeOverAtStart(): Promise<OrphanedRun[]>;
}
