// FETCH_ALLOWED_HOSTS: hosts the operator vouches for, which skip the private-address rules
// (e.g. a wiki on the LAN, or a test server on 127.0.0.1:<port>). Pure: no DNS.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AllowedHost {
	host: string;
	/** Undefined allows only the web's ports, 80 and 443. */
	port?: number;
}

const HOSTNAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** Parses "host", "host:port", "1.2.3.4:80", "::1" or "[::1]:8080", comma-separated. */
export function parseAllowedHosts(list: string): AllowedHost[] {
	return list
		.split(',')
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '')
		.map(parseEntry);
}

function parseEntry(entry: string): AllowedHost {
	const [rawHost, rawPort] = splitHostPort(entry);
	const host = canonicalHost(rawHost);
	if (!isIP(host) && !HOSTNAME.test(host)) throw new Error(`"${entry}" is not a hostname or IP address`);
	if (rawPort === undefined) return { host };
	const port = Number(rawPort);
	if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) throw new Error(`"${entry}" has an invalid port`);
	return { host, port };
}

function splitHostPort(entry: string): [string, string | undefined] {
	const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
	if (bracketed) return [bracketed[1]!, bracketed[2]];
	const parts = entry.split(':');
	// More than one colon is a bare IPv6 address, whose colons are not a port separator.
	if (parts.length !== 2) return [entry, undefined];
	return [parts[0]!, parts[1]!];
}

/** Lower case, no brackets, no trailing dot, IPs in one canonical spelling: both sides compare equal. */
export function canonicalHost(host: string): string {
	const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
	return isIP(bare) ? ipaddr.parse(bare).toString() : bare;
}

export function effectivePort(url: URL): number {
	if (url.port) return Number(url.port);
	return url.protocol === 'https:' ? 443 : 80;
}

// An entry without a port once opened every port of its host, so "127.0.0.1" let an injected page
// make the agent read Sophos's own API or Ollama's (issue 21); other ports must be named.
const WEB_PORTS = new Set([80, 443]);

export function isAllowListed(url: URL, allowed: readonly AllowedHost[]): boolean {
	const host = canonicalHost(url.hostname);
	const port = effectivePort(url);
	return allowed.some((entry) => entry.host === host && (entry.port === undefined ? WEB_PORTS.has(port) : entry.port === port));
}
