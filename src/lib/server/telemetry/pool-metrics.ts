import { Gauge, Histogram, type Registry } from 'prom-client';

/** What the metrics read of the instance's pool of database connections (postgres/measured-pool.ts). */
export interface PoolUse {
	/** DATABASE_POOL_MAX: the most connections the pool opens. */
	readonly max: number;
	/** Now: connections checked out (or being opened) and idle ones, and checkouts waiting for one. */
	counts(): { busy: number; idle: number; waiting: number };
	/** From now on `observer` is told each checkout's wait in seconds, one that timed out too; returns its removal. */
	onCheckout(observer: (seconds: number) => void): () => void;
}

/**
 * Seconds: a checkout served by an idle connection takes well under a millisecond, one that opens a
 * connection a few, and one that waits for a busy pool up to the 10 s connect timeout.
 */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * `sophos_db_pool_*` in `registry`: the pool's connections by state and its waiting checkouts, read
 * at each scrape, and the histogram of checkout waits. Returns the disposer of the wait observer.
 */
export function registerPoolMetrics(registry: Registry, pool: PoolUse): () => void {
	const registers = [registry];
	new Gauge({
		name: 'sophos_db_pool_max_connections',
		help: 'The most connections the database pool opens (DATABASE_POOL_MAX).',
		registers,
		collect() {
			this.set(pool.max);
		}
	});
	new Gauge({
		name: 'sophos_db_pool_connections',
		help: 'Connections of the database pool: busy (checked out, or being opened) or idle.',
		labelNames: ['state'] as const,
		registers,
		collect() {
			const { busy, idle } = pool.counts();
			this.set({ state: 'busy' }, busy);
			this.set({ state: 'idle' }, idle);
		}
	});
	new Gauge({
		name: 'sophos_db_pool_waiting_clients',
		help: 'Queries and transactions waiting for a connection of the database pool now.',
		registers,
		collect() {
			this.set(pool.counts().waiting);
		}
	});
	const waits = new Histogram({
		name: 'sophos_db_pool_wait_seconds',
		help: 'Time from asking the database pool for a connection to having one (or giving up).',
		buckets: WAIT_BUCKETS,
		registers
	});
	return pool.onCheckout((seconds) => waits.observe(seconds));
}
