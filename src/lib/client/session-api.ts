/**
 * Signing the page in when the service asks for SOPHOS_TOKEN: any API answer 401 raises the
 * prompt; the prompt posts the token once to POST /api/session, whose answer sets an HttpOnly
 * cookie the page never sees, and which every later request and EventSource carries.
 */
type Fetch = typeof fetch;

/** `fetchImpl`, calling `onUnauthorized` whenever the service answers 401. */
export function watchUnauthorized(fetchImpl: Fetch, onUnauthorized: () => void): Fetch {
	return async (...args) => {
		const res = await fetchImpl(...args);
		if (res.status === 401) onUnauthorized();
		return res;
	};
}

/** Null once signed in; otherwise what to tell the person (the server's own words when it gave some). */
export async function postToken(token: string, fetchImpl: Fetch = (...args) => fetch(...args)): Promise<string | null> {
	let res: Response;
	try {
		res = await fetchImpl('/api/session', {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ token })
		});
	} catch {
		return 'Failed to connect to the server.';
	}
	if (res.ok) return null;
	if (res.status === 401) return 'That is not the token.';
	try {
		const body = (await res.json()) as { error?: { message?: unknown } };
		if (typeof body.error?.message === 'string') return body.error.message;
	} catch {
		// Not our JSON: the status is all there is.
	}
	return `The server answered ${res.status}.`;
}
