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
