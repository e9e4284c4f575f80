import type { TraceNote } from '../agent/agent-events';
import type { ErrorCode } from '../errors';
import type { RunStatus } from '../db/conversation-store';

/** Every event a run publishes, as one union shared by the log, the route and the tests. */
export type RunEvent =
	| { event: 'token'; data: string }
	| { event: 'reasoning'; data: string }
	| { event: 'trace'; data: TraceNote }
	| { event: 'warning'; data: { code: 'TOOLS_UNAVAILABLE'; message: string; servers: string[] } }
	| { event: 'end'; data: { conversation: string; run: string; status: RunStatus; cause?: ErrorCode } }
	| { event: 'chat-error'; data: { code: ErrorCode; message: string; conversation: string; run: string } };

export function isTerminal(e: RunEvent): boolean {
	return e.event === 'end' || e.event === 'chat-error';
}
