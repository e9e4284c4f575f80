import { GraphRecursionError } from '@langchain/langgraph';
import { RunFailure } from '../errors';

const NETWORK_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ETIMEDOUT',
	'UND_ERR_CONNECT_TIMEOUT',
	'UND_ERR_SOCKET'
]);

function causeCode(e: unknown): string | undefined {
	for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
		const code = (c as { code?: unknown }).code;
		if (typeof code === 'string') return code;
	}
	return undefined;
}

/**
 * Classifies a failure of a model call while its type is still known: the Ollama client throws a
 * `ResponseError` with `status_code`, and fetch throws a TypeError whose cause carries the errno;
 * the wording of either is never read.
 */
export function classifyModelError(e: unknown, host: string, model: string): RunFailure {
	if (e instanceof RunFailure) return e;
	const status = (e as { status_code?: unknown }).status_code;
	const message = e instanceof Error ? e.message : String(e);
	// /api/chat exists on every Ollama, so its 404 can only mean the model is not there.
	if (status === 404) {
		return new RunFailure(
			'MODEL_UNAVAILABLE',
			`The model "${model}" is not available on ${host}: run \`ollama pull ${model}\`.`,
			{ cause: e }
		);
	}
	const code = causeCode(e);
	if (code && NETWORK_CODES.has(code)) {
		return new RunFailure('MODEL_UNREACHABLE', `Ollama is not reachable at ${host} (${code ?? message}).`, {
			cause: e
		});
	}
	return new RunFailure('AGENT_FAILURE', `The model call failed: ${message}`, { cause: e });
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
