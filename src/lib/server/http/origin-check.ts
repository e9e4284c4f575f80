/**
 * Pure. Whether a request may come from where the browser says it comes from. Browsers send Origin
 * on every POST, DELETE, PUT and PATCH, no-cors ones too, on every CORS-mode GET (EventSource's
 * included), and Sec-Fetch-Site on every request; a page elsewhere can send such a request (it
 * cannot read the answer), so the answer cannot be what protects a cancel or a delete. Nor a read:
 * an EventSource from another site holds one of the run's MAX_STREAMS_PER_RUN readers however
 * little it can see (issue 21), so reads are checked too, all but the page shell's. Clients other
 * than browsers send neither header and keep working (the token, when one is set, guards them).
 */

/** Methods that change nothing; every other method, known or not, is checked. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type OriginFacts = {
	method: string;
	/** The Origin header, null when absent. */
	origin: string | null;
	/** The Sec-Fetch-Site header, null when absent. */
	fetchSite: string | null;
	/** The Host header, already allow-listed. */
	host: string | null;
	/** ALLOWED_ORIGINS, each as `URL.origin` spells it. */
	allowed: readonly string[];
	/** Whether GET, HEAD and OPTIONS are checked as well: everywhere but the page shell. */
	reads: boolean;
};

/** Null when the request may go on; otherwise why it is refused. */
export function originRefusal(facts: OriginFacts): string | null {
	const safe = SAFE_METHODS.has(facts.method.toUpperCase());
	if (safe && !facts.reads) return null;
	const what = safe ? 'read' : 'change';
	const { origin, fetchSite } = facts;
	if (origin !== null && facts.allowed.includes(origin)) return null;
	if (origin !== null && !isOwnOrigin(origin, facts.host)) {
		return `Requests from ${JSON.stringify(origin)} may not ${what} anything here; add that origin to ALLOWED_ORIGINS to allow it`;
	}
	// `same-site` too: another port of localhost is the same site yet another origin.
	if (fetchSite === 'cross-site' || fetchSite === 'same-site') {
		return `A ${fetchSite} request may not ${what} anything here; add its origin to ALLOWED_ORIGINS to allow it`;
	}
	return null;
}

/**
 * The page's own origin: the Host it was loaded from, over http, or over https through a TLS
 * proxy. Sophos cannot tell which from the request (adapter-node guesses https unless told), and
 * need not: a page on that very host and port is served by Sophos or by the proxy in front of it.
 */
function isOwnOrigin(origin: string, host: string | null): boolean {
	if (host === null) return false;
	const h = host.toLowerCase();
	return origin === `http://${h}` || origin === `https://${h}`;
}

/** ALLOWED_ORIGINS entry: `scheme://host[:port]` exactly, as browsers send it; throws otherwise. */
export function parseOrigin(entry: string): string {
	let url: URL;
	try {
		url = new URL(entry);
	} catch {
		throw new Error(`"${entry}" is not an origin (scheme://host[:port])`);
	}
	if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, '').toLowerCase()) {
		throw new Error(`"${entry}" is not an origin: write http(s)://host[:port], with no path, user or default port`);
	}
	return url.origin;
}
