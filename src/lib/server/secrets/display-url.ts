/**
 * Pure. How a configured URL is shown in a message, a log line, readiness or GET /api/models:
 * without its credentials (`user:password@`), with every query value and the fragment hidden
 * (`?api-key=***`), since any of them may be a key (Azure's `api-key`, a signed URL's `sig`). The
 * scheme, host, port and path stay: they are what a person needs to tell which server is meant.
 */

export const HIDDEN = '***';

/**
 * Read by pattern rather than `new URL`, so that a value the settings refused as a URL (a bad port,
 * a space) is shown without its secrets too; `new URL` would also re-encode the path it shows.
 */
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/is;

export function displayUrl(url: string): string {
	const parts = URL_PARTS.exec(url);
	if (!parts) return HIDDEN;
	const [, scheme = '', authority = '', path = '', query, fragment] = parts;
	const host = authority.slice(authority.lastIndexOf('@') + 1);
	const shownQuery = query === undefined ? '' : `?${query.slice(1).split('&').map(hideValue).join('&')}`;
	return `${scheme}${host}${path}${shownQuery}${fragment ? `#${HIDDEN}` : ''}`;
}

function hideValue(pair: string): string {
	const eq = pair.indexOf('=');
	return eq === -1 ? pair : `${pair.slice(0, eq)}=${HIDDEN}`;
}

/** Query parameters whose values are secrets by their name: keys, tokens, signatures, passwords. */
const SECRET_PARAM = /key|token|secret|sig|pass|pwd|auth|credential|session/i;

/**
 * Pure. What in `url` is a secret the redactor must know, also where it appears outside the URL
 * (a client's error that quotes the password, a server that echoes a Basic header): the
 * password, `user:password` raw and in Base64 (Basic auth), and the values of query parameters
 * named like secrets. The values of other parameters (`?version=2`) are hidden when the URL is
 * shown, but not hunted for elsewhere, where they would blank ordinary words.
 */
export function urlSecrets(url: string): string[] {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return urlSecretsByPattern(url);
	}
	const secrets: string[] = [];
	const user = decode(parsed.username);
	const password = decode(parsed.password);
	if (password) secrets.push(password, parsed.password, `${user}:${password}`, Buffer.from(`${user}:${password}`).toString('base64'));
	else if (user) secrets.push(user, parsed.username);
	for (const [name, value] of parsed.searchParams) if (SECRET_PARAM.test(name) && value) secrets.push(value, encodeURIComponent(value));
	return secrets;
}

/** A refused value still holds what the person meant as a password: taken out by pattern. */
function urlSecretsByPattern(url: string): string[] {
	const parts = URL_PARTS.exec(url);
	if (!parts) return [];
	const authority = parts[2] ?? '';
	const at = authority.lastIndexOf('@');
	const userinfo = at === -1 ? '' : authority.slice(0, at);
	const password = userinfo.includes(':') ? userinfo.slice(userinfo.indexOf(':') + 1) : userinfo;
	const query = (parts[4] ?? '').slice(1).split('&').flatMap((pair) => {
		const eq = pair.indexOf('=');
		return eq !== -1 && SECRET_PARAM.test(pair.slice(0, eq)) ? [pair.slice(eq + 1)] : [];
	});
	return [password, userinfo, ...query].filter(Boolean);
}

function decode(part: string): string {
	try {
		return decodeURIComponent(part);
	} catch {
		return part;
	}
}
