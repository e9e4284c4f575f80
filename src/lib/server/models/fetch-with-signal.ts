/**
 * `fetch` whose every request `signal` also aborts, beside the signal the client gives it. The
 * Ollama client aborts only through its own controller, shared by all its requests, so a run's
 * cancel reaches its model request here, even while the model has not sent its next token.
 */
export function fetchWithSignal(fetcher: typeof fetch, signal: AbortSignal | undefined): typeof fetch {
	if (!signal) return fetcher;
	return (input, init) => fetcher(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}
