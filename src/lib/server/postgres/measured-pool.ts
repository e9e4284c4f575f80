// The instance's pool of connections (pg's Pool), timing every checkout for the pool metrics
// (telemetry/pool-metrics.ts): how long a query or a transaction waited before it could start.

import pg from 'pg';
import type { PoolUse } from '../telemetry/pool-metrics';

type CheckoutCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * A pg Pool whose checkouts, `pool.query`'s own included (it checks out through `connect`), are
 * timed from the ask to the connection (or the error, a connect timeout among them).
 */
export class MeasuredPool extends pg.Pool implements PoolUse {
	private readonly observers = new Set<(seconds: number) => void>();

	get max(): number {
		return this.options.max;
	}

	counts(): { busy: number; idle: number; waiting: number } {
		return { busy: this.totalCount - this.idleCount, idle: this.idleCount, waiting: this.waitingCount };
	}

	onCheckout(observer: (seconds: number) => void): () => void {
		this.observers.add(observer);
		return () => this.observers.delete(observer);
	}

	override connect(): Promise<pg.PoolClient>;
	override connect(callback: CheckoutCallback): void;
	override connect(callback?: CheckoutCallback): Promise<pg.PoolClient> | void {
		const began = performance.now();
		const waited = () => {
			const seconds = (performance.now() - began) / 1_000;
			for (const observer of this.observers) observer(seconds);
		};
		if (!callback) return super.connect().finally(waited);
		super.connect((err, client, done) => {
			waited();
			callback(err, client, done);
		});
	}
}
