import { GraphRecursionError } from '@langchain/langgraph';
import { RunFailure } from '../errors';

/** Maps whatever ended a run to the wire code recorded on it. */
export function classifyRunError(e: unknown): RunFailure {
	if (e instanceof RunFailure) return e;
	if (e instanceof GraphRecursionError || (e as Error)?.name === 'GraphRecursionError') {
		return new RunFailure(
			'RECURSION_LIMIT',
			'The agent reached its step limit (AGENT_RECURSION_LIMIT) without finishing.',
			{ cause: e }
		);
	}
	const message = e instanceof Error ? e.message : String(e);
	return new RunFailure('AGENT_FAILURE', message || 'Agent failed', { cause: e });
}
