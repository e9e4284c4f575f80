import { AsyncLocalStorage } from 'node:async_hooks';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitHandler } from './mcp-connection';

/** Who answers the questions a server asks during one call; none: the call was made where no person can answer. */
export type CallAsker = ElicitHandler | undefined;

type Call = { ask: CallAsker; ended: AbortController };

const UNANSWERED: ElicitResult = { action: 'cancel' };

/**
 * Finds the call a server's question (elicitation/create) belongs to. MCP ties it to the request
 * it is made during only on the wire: over Streamable HTTP it arrives on that request's own
 * response stream, which the SDK reads inside the call's async context, so the context names the
 * call; over stdio (one pipe for everything) or the standalone GET stream it does not, and then
 * the question is the one call's in flight on this connection. With several in flight it cannot be
 * told whose it is, so it is answered `cancel` without showing it to anyone.
 */
export class QuestionRouter {
	private readonly context = new AsyncLocalStorage<Call>();
	private readonly inFlight = new Set<Call>();

	constructor(private readonly log: (line: string) => void) {}

	/** Runs one call; its questions are closed when it ends, however it ends. */
	async within<T>(ask: CallAsker, call: () => Promise<T>): Promise<T> {
		const entry: Call = { ask, ended: new AbortController() };
		this.inFlight.add(entry);
		try {
			return await this.context.run(entry, call);
		} finally {
			this.inFlight.delete(entry);
			entry.ended.abort(new Error('the call ended'));
		}
	}

	/** The SDK's handler for the server's question. */
	readonly route = async (request: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> => {
		const call = this.context.getStore() ?? (this.inFlight.size === 1 ? [...this.inFlight][0] : undefined);
		if (!call?.ask) {
			this.log(`MCP: a question from the server was answered "cancel": ${this.inFlight.size ? 'its call cannot be told apart' : 'no call of ours is in flight'}`);
			return UNANSWERED;
		}
		if (call.ended.signal.aborted) return UNANSWERED;
		return call.ask(request, AbortSignal.any([signal, call.ended.signal]));
	};
}
