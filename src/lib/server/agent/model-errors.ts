import { GraphRecursionError } from '@langchain/langgraph';
import { SophosError } from '../errors';

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
 * `ResponseError` with `status_code`, and fetch throws a TypeError whose cause carries the errno.
 */
export function classifyModelError(e: unknown, host: string, model: string): SophosError {
	if (e instanceof SophosError) return e;
	const status = (e as { status_code?: unknown }).status_code;
	const message = e instanceof Error ? e.message : String(e);
	if (status === 404 && /model .* not found/i.test(message)) {
		return new SophosError(
			'MODEL_UNAVAILABLE',
			`The model "${model}" is not available on ${host}: run \`ollama pull ${model}\`.`,
			{ cause: e }
		);
	}
	const code = causeCode(e);
	if ((code && NETWORK_CODES.has(code)) || (e instanceof TypeError && message === 'fetch failed')) {
		return new SophosError('MODEL_UNREACHABLE', `Ollama is not reachable at ${host} (${code ?? message}).`, {
			cause: e
		});
	}
	return new SophosError('AGENT_FAILURE', `The model call failed: ${message}`, { cause: e });
}

/** Maps whatever ended a run to the wire code recorded on it. */
export function classifyRunError(e: unknown): SophosError {
	if (e instanceof SophosError) return e;
	if (e instanceof GraphRecursionError || (e as Error)?.name === 'GraphRecursionError') {
		return new SophosError(
			'RECURSION_LIMIT',
			'The agent reached its step limit (AGENT_RECURSION_LIMIT) without finishing.',
			{ cause: e }
		);
	}
	const message = e instanceof Error ? e.message : String(e);
	return new SophosError('AGENT_FAILURE', message || 'Agent failed', { cause: e });
}
