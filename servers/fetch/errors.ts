/**
 * A failure whose message is written for the model and the user: the tool returns it verbatim as
 * an isError result. Anything else that escapes is wrapped as "Failed to fetch <url>: ...".
 */
export class FetchError extends Error {
	override name = 'FetchError';
}
