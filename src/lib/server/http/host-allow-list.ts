/**
 * Pure. Which `Host` values Sophos answers: loopback names and addresses with any port, and the
 * operator's ALLOWED_HOSTS. This is what defeats DNS rebinding: a page whose own name was re-pointed
 * at 127.0.0.1 still sends its own name as Host (issue 13).
 */
import ipaddr from 'ipaddr.js';

/** One ALLOWED_HOSTS entry; without a port it allows every port of the host. */
export type HostEntry = { host: string; port?: number };

const LABEL = '[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(\\.${LABEL})*$`);
const PORT = /^[0-9]{1,5}$/;

/**
 * "name", "name:port", "1.2.3.4[:port]" or "[v6][:port]" as a lower-case host in one canonical
 * spelling and a port, or null. Only the spellings a browser sends pass: an IPv4 address in four
 * decimal parts, IPv6 in brackets. A last label made of digits is an address attempt
 * (`127.1`, `2130706433`, `0x7f.0.0.1` as a browser reads them), refused unless it is one.
 */
export function parseHost(value: string): { host: string; port?: number } | null {
	const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(.*))?$/.exec(value.toLowerCase());
	if (!match) return null;
	const [, rawHost = '', rawPort] = match;
	let port: number | undefined;
	if (rawPort !== undefined) {
		if (!PORT.test(rawPort)) return null;
		port = Number(rawPort);
		if (port < 1 || port > 65_535) return null;
	}
	const host = canonicalHost(rawHost);
	return host === null ? null : port === undefined ? { host } : { host, port };
}

function canonicalHost(raw: string): string | null {
	if (raw.startsWith('[')) {
		const inner = raw.slice(1, -1);
		return ipaddr.IPv6.isValid(inner) ? ipaddr.IPv6.parse(inner).toString() : null;
	}
	if (!HOSTNAME.test(raw)) return null;
	const last = raw.slice(raw.lastIndexOf('.') + 1);
	if (/^(0x[0-9a-f]*|[0-9]+)$/.test(last)) return ipaddr.IPv4.isValidFourPartDecimal(raw) ? raw : null;
	return raw;
}

/** localhost, 127.0.0.0/8 or ::1 (already canonical, as `parseHost` returns it). */
export function isLoopbackHost(host: string): boolean {
	if (host === 'localhost' || host === '::1') return true;
	return ipaddr.IPv4.isValidFourPartDecimal(host) && ipaddr.IPv4.parse(host).range() === 'loopback';
}

/** The HOST setting (no brackets, no port) names a loopback interface. */
export function isLoopbackListenAddress(value: string): boolean {
	const host = parseHost(ipaddr.IPv6.isValid(value) ? `[${value}]` : value)?.host;
	return host !== undefined && isLoopbackHost(host);
}

/** One ALLOWED_HOSTS entry; throws naming it when it is not a host[:port]. */
export function parseHostEntry(entry: string): HostEntry {
	const parsed = parseHost(entry);
	if (!parsed) throw new Error(`"${entry}" is not a host or host:port (an IPv6 address in brackets)`);
	return parsed;
}

/**
 * How many Host headers `rawHeaders` (Node's name, value, name, value, … list) holds. Node keeps
 * the first of several in `headers` and drops the rest, so only the raw list shows a second one.
 */
export function hostHeaderCount(rawHeaders: readonly string[]): number {
	let count = 0;
	for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') count++;
	return count;
}

/** Whether a request's Host header (null when absent) may be answered. */
export function isAllowedHost(header: string | null, allowed: readonly HostEntry[]): boolean {
	const parsed = header === null ? null : parseHost(header);
	if (!parsed) return false;
	if (isLoopbackHost(parsed.host)) return true;
	return allowed.some((e) => e.host === parsed.host && (e.port === undefined || e.port === parsed.port));
}
