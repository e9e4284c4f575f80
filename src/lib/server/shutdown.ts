import type { Runtime } from './runtime';
import { redactor } from './secrets/redactor';

/**
 * How long to wait for adapter-node to close the HTTP server once runs have stopped. It rechecks
 * idle connections only at the moment a request closes, when an SSE socket is not idle yet, so a
 * kept-alive socket would hold it for the 5 s keep-alive timeout; by the time this wait starts every
 * stream has ended, and anything still open is idle.
 */
const HTTP_CLOSE_WAIT_MS = 1_000;

/**
 * On SIGTERM or SIGINT: refuse new runs and stop those in flight (each records its outcome and ends
 * its SSE streams with a terminal event), let adapter-node finish open responses, then close MCP
 * servers and the database and exit 0.
 */
export function installShutdown(runtime: Runtime): void {
	let started = false;
	const onSignal = async (signal: NodeJS.Signals) => {
		if (started) return;
		started = true;
		console.log(`${signal}: shutting down`);
		const httpClosed = new Promise<void>((resolve) => {
			process.once('sveltekit:shutdown' as 'exit', () => resolve());
			setTimeout(resolve, HTTP_CLOSE_WAIT_MS);
		});
		let code = 0;
		try {
			await runtime.runService.stopAll(runtime.settings.SHUTDOWN_DRAIN_MS);
			await httpClosed;
			await runtime.close();
		} catch (e) {
			console.error('Shutdown failed', redactor.describe(e));
			code = 1;
		}
		process.exit(code);
	};
	process.once('SIGTERM', onSignal);
	process.once('SIGINT', onSignal);
}
