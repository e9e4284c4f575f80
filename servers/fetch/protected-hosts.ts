// FETCH_PROTECTED_HOSTS: Sophos's own address and its model servers', passed by the service in the
// child's env (config/mcp.json). An injected page must not make the agent read Sophos's API (every
// chat) or a model server (issue 21), so these stay refused even for an allow-listed host unless
// FETCH_ALLOWED_HOSTS names them with their port.
import type { LookupAddress } from 'node:dns';
import os from 'node:os';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { addressRisk } from './address-policy.js';
import { effectivePort, parseAllowedHosts, type AllowedHost } from './allowed-hosts.js';
import type { Target } from './url-policy.js';

type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface ProtectedHost {
	host: string;
	port: number;
}

/** Parses "host:port" entries, comma-separated, as FETCH_ALLOWED_HOSTS does; the port is required. */
export function parseProtectedHosts(list: string): ProtectedHost[] {
	return parseAllowedHosts(list).map(({ host, port }) => {
		if (port === undefined) throw new Error(`"${host}" has no port`);
		return { host, port };
	});
}

/**
 * The protected entry `target` reaches on one of `addresses` (those it resolved to, or its literal
 * IP), or undefined. An entry matches by name; by address too when its addresses are not public
 * ones (loopback stands for all of loopback, an unspecified 0.0.0.0 or :: for every address of this
 * machine), since a public address such as a CDN's is shared with sites that are not the model
 * server. An entry named in `allowedHosts` with its port is not refused.
 */
export async function protectedEntry(
	target: Target,
	addresses: readonly string[],
	guard: { protectedHosts: readonly ProtectedHost[]; allowedHosts: readonly AllowedHost[]; resolve: Resolver }
): Promise<ProtectedHost | undefined> {
	const port = effectivePort(target.url);
	const candidates = guard.protectedHosts.filter((entry) => entry.port === port);
	if (candidates.length === 0) return undefined;
	if (guard.allowedHosts.some((entry) => entry.port === port && entry.host === target.host)) return undefined;
	const reached = addresses.map(plainAddress);
	for (const entry of candidates) {
		if (entry.host === target.host) return entry;
		const own = (await addressesOf(entry.host, guard.resolve)).filter((address) => addressRisk(address) !== undefined);
		if (own.some((address) => reached.some((at) => sameMachineAddress(at, address)))) return entry;
	}
	return undefined;
}

async function addressesOf(host: string, resolve: Resolver): Promise<string[]> {
	if (isIP(host)) return [plainAddress(host)];
	try {
		return (await resolve(host)).map((entry) => plainAddress(entry.address));
	} catch {
		// A name that does not resolve here is matched by name alone.
		return [];
	}
}

function sameMachineAddress(reached: string, own: string): boolean {
	if (reached === own) return true;
	const kind = range(own);
	if (kind === 'loopback') return range(reached) === 'loopback';
	if (kind === 'unspecified') return ['loopback', 'unspecified'].includes(range(reached)) || localAddresses().includes(reached);
	return false;
}

function range(address: string): string {
	return ipaddr.parse(address).range();
}

/** One spelling per address, an IPv4-mapped IPv6 address as its IPv4 one. */
function plainAddress(address: string): string {
	return ipaddr.process(address).toString();
}

function localAddresses(): string[] {
	return Object.values(os.networkInterfaces())
		.flatMap((entries) => entries ?? [])
		.map((entry) => plainAddress(entry.address.replace(/%.*$/, '')));
}
