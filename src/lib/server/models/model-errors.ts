import { GraphRecursionError } from '@langchain/langgraph';
import { RunFailure } from '../errors';

/** Errno and undici codes that mean the model server could not be reached, or the connection broke. */
const NETWORK_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ETIMEDOUT',
	'EPIPE',
	'UND_ERR_CONNECT_TIMEOUT',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_SOCKET'
]);

/**
 * The network code of a failed request, looked for along the cause chain (fetch throws a TypeError
 * whose cause carries the errno; the OpenAI client wraps that TypeError once more); undefined when
 * the failure was not the network's.
 */
export function networkErrorCode(e: unknown): string | undefined {
	for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
		const code = (c as { code?: unknown }).code;
		if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
	}
	return undefined;
}

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
