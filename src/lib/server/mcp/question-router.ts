import { AsyncLocalStorage } from 'node:async_hooks';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitHandler } from './mcp-connection';

/** Who answers the questions a server asks during one call; none: the call was made where no person can answer. */
export type CallAsker = ElicitHandler | undefined;

type Call = { ask: CallAsker; ended: AbortController };

const UNANSWERED: ElicitResult = { action: 'cancel' };

/**
 * Why a URL question closed without the person's answer: the server said the interaction it sent
 * them to has finished (`notifications/elicitation/complete`, MCP 2025-11-25).
 */
export class ElicitationCompleted extends Error {
	readonly code = 'ELICITATION_COMPLETED';
	constructor(readonly elicitationId: string) {
		super(`the server completed the interaction of question ${elicitationId}`);
	}
}

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
	/** Open URL questions by the server's `elicitationId`, each closed by its completion. */
	private readonly urlQuestions = new Map<string, AbortController>();

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
		if (request.mode !== 'url' || this.urlQuestions.has(request.elicitationId)) return call.ask(request, AbortSignal.any([signal, call.ended.signal]));
		const completed = new AbortController();
		this.urlQuestions.set(request.elicitationId, completed);
		try {
			return await call.ask(request, AbortSignal.any([signal, call.ended.signal, completed.signal]));
		} finally {
			this.urlQuestions.delete(request.elicitationId);
		}
	};

	/**
	 * The server's `notifications/elicitation/complete`: closes its open URL question of that id,
	 * with an ElicitationCompleted reason. An id with no open question (answered already, or
	 * unknown) is ignored, as MCP asks.
	 */
	readonly complete = (elicitationId: string): void => {
		this.urlQuestions.get(elicitationId)?.abort(new ElicitationCompleted(elicitationId));
	};
}
