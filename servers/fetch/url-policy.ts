// First gate for every URL, redirects included: scheme, credentials, known metadata names and
// literal IP addresses. Pure: names are resolved later, in target-guard.ts.
import { isIP } from 'node:net';
import { addressRisk } from './address-policy.js';
import { canonicalHost, isAllowListed, type AllowedHost } from './allowed-hosts.js';
import { FetchError } from './errors.js';

// Names that reach cloud metadata services, refused before any lookup (and even if allow-listed).
const METADATA_HOSTNAMES = new Set([
	'metadata',
	'metadata.google.internal',
	'metadata.goog',
	'instance-data',
	'instance-data.ec2.internal'
]);

export interface Target {
	url: URL;
	/** Hostname as connected to: no brackets, no trailing dot, IPs canonical. */
	host: string;
	/** Literal IPs are judged here; net.connect skips the lookup for them, so nothing later would. */
	isLiteral: boolean;
	allowListed: boolean;
}

export function parseUrl(raw: string): URL {
	try {
		return new URL(raw.trim());
	} catch {
		throw new FetchError(`Invalid URL: ${JSON.stringify(raw)}. Give an absolute http:// or https:// URL.`);
	}
}

/** Throws a FetchError saying why when `url` may not be fetched. */
export function vetUrl(url: URL, allowedHosts: readonly AllowedHost[]): Target {
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		refuse(url, `only http: and https: URLs can be fetched, not ${url.protocol}`);
	}
	if (url.username || url.password) {
		refuse(url, 'URLs with credentials (user:password@host) are not allowed');
	}
	const host = canonicalHost(url.hostname);
	if (METADATA_HOSTNAMES.has(host)) refuse(url, `${host} is a cloud metadata endpoint`);
	const allowListed = isAllowListed(url, allowedHosts);
	const isLiteral = isIP(host) !== 0;
	if (isLiteral) {
		const risk = addressRisk(host, allowListed);
		if (risk) refuse(url, `${host} is ${risk}`);
	}
	return { url, host, isLiteral, allowListed };
}

export function refuse(url: URL, why: string): never {
	throw new FetchError(`Refusing to fetch ${displayUrl(url)}: ${why}.`);
}

/** The URL with any credentials masked, so they are never echoed back to the model. */
export function displayUrl(url: URL): string {
	if (!url.username && !url.password) return url.href;
	const masked = new URL(url.href);
	masked.username = '***';
	masked.password = '';
	return masked.href;
}
