import type { ApprovalExpiry } from './runs/approval-expiry';
import type { LeaseKeeper } from './runs/lease-keeper';
import type { RunService } from './runs/run-service';
import type { Toolbox } from './mcp/toolbox';
import type { StorageEngine } from './storage/storage-engine';
import type { Telemetry } from './telemetry/telemetry';

export type RuntimeCloseParts = {
	expiry: Pick<ApprovalExpiry, 'close'>;
	keeper: Pick<LeaseKeeper, 'stopTakingOver' | 'stop'> | null;
	runService: Pick<RunService, 'stopAll'>;
	toolbox: Pick<Toolbox, 'close'>;
	engine: Pick<StorageEngine, 'close'>;
	telemetry: Pick<Telemetry, 'close'>;
	drainMs: number;
};

/**
 * The runtime's close, once however often it is called. Runs first: each records its outcome, which
 * needs the database, and its tools, which need the MCP servers; then the MCP servers, the database,
 * and telemetry last, so what the close did is still counted. A step that fails does not keep the
 * later ones from running; the last failure is what the close rejects with.
 */
export function runtimeClose(parts: RuntimeCloseParts): () => Promise<void> {
	const { expiry, keeper, runService, toolbox, engine, telemetry, drainMs } = parts;
	let closed: Promise<void> | null = null;
	return () =>
		(closed ??= inOrder([
			async () => {
				expiry.close();
				keeper?.stopTakingOver();
				await runService.stopAll(drainMs);
				await keeper?.stop();
			},
			() => toolbox.close(),
			() => engine.close(),
			() => telemetry.close()
		]));
}

async function inOrder(steps: (() => Promise<void>)[]): Promise<void> {
	const [first, ...rest] = steps;
	if (!first) return;
	try {
		await first();
	} finally {
		await inOrder(rest);
	}
}
