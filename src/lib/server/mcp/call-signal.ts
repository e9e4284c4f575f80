/**
 * A signal of one tool call's own, aborted with `parent`'s reason, and `detach`, to be called when
 * the call ends. The MCP SDK adds an abort listener to the signal a request is given and never
 * removes it (1.x `Protocol.request`); given the step's signal, 30 calls of one step left 30
 * listeners on it and Node warned at the 11th (issue 21). Each call therefore gets this signal,
 * and the one listener on `parent` is removed when the call ends.
 */
export function callSignal(parent: AbortSignal | undefined): { signal: AbortSignal | undefined; detach: () => void } {
	if (!parent) return { signal: undefined, detach: () => {} };
	const controller = new AbortController();
	if (parent.aborted) {
		controller.abort(parent.reason);
		return { signal: controller.signal, detach: () => {} };
	}
	const forward = () => controller.abort(parent.reason);
	parent.addEventListener('abort', forward, { once: true });
	return { signal: controller.signal, detach: () => parent.removeEventListener('abort', forward) };
}
