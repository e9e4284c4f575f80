// The tool host's calls in flight, counted by their HTTP requests, so a shutdown can let them
// finish before it ends the sessions. A POST's answer stream ends once its answers are written, so
// a closed POST is a call whose outcome reached the client.
import type http from 'node:http';

export class RequestDrain {
	private open = 0;
	private waiters: (() => void)[] = [];

	/** Counts `res` as in flight until it closes. */
	track(res: http.ServerResponse): void {
		this.open++;
		res.once('close', () => {
			this.open--;
			if (this.open === 0) for (const resolve of this.waiters.splice(0)) resolve();
		});
	}

	/** Resolves true once nothing is in flight, or false after `graceMs` (a timer that does not hold the process). */
	drained(graceMs: number): Promise<boolean> {
		if (this.open === 0) return Promise.resolve(true);
		return new Promise((resolve) => {
			const done = () => {
				clearTimeout(timer);
				resolve(true);
			};
			const timer = setTimeout(() => {
				this.waiters = this.waiters.filter((w) => w !== done);
				resolve(false);
			}, graceMs);
			timer.unref();
			this.waiters.push(done);
		});
	}
}
