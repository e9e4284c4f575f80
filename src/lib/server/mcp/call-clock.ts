import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** The longest delay a Node timer takes: the SDK's own timeout is set past any call's. */
export const NEVER_MS = 2_147_483_647;

/**
 * One call's MCP_TOOL_TIMEOUT_MS, kept by Sophos rather than the SDK so it can stop: while a
 * question of the server's waits for a person (elicitation, with its own ELICITATION_TIMEOUT_MS)
 * the call's time does not run, and after the answer it starts again from the full timeout. On
 * expiry `signal` aborts with the SDK's own RequestTimeout error, which makes the SDK send
 * `notifications/cancelled` and reject the call with it.
 */
export class CallClock {
	private readonly controller = new AbortController();
	private timer: NodeJS.Timeout | undefined;
	private open = 0;
	private stopped = false;

	constructor(private readonly ms: number) {
		this.arm();
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	async paused<T>(work: () => Promise<T>): Promise<T> {
		if (this.open++ === 0) clearTimeout(this.timer);
		try {
			return await work();
		} finally {
			if (--this.open === 0 && !this.stopped && !this.controller.signal.aborted) this.arm();
		}
	}

	stop(): void {
		this.stopped = true;
		clearTimeout(this.timer);
	}

	private arm(): void {
		clearTimeout(this.timer);
		this.timer = setTimeout(() => this.controller.abort(McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: this.ms })), this.ms);
	}
}
