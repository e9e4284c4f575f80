// The DNS half of the SSRF guard. A name is resolved and refused if ANY of its addresses is
// unsafe; the same check runs again inside the socket's own lookup, so an answer that changes
// between the check and the connect (DNS rebinding) is caught on the address really used.
import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRisk } from './address-policy.js';
import type { AllowedHost } from './allowed-hosts.js';
import { FetchError } from './errors.js';
import { protectedEntry, type ProtectedHost } from './protected-hosts.js';
import { refuse, vetUrl, type Target } from './url-policy.js';

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface Guard {
	allowedHosts: readonly AllowedHost[];
	/** Sophos's own and its model servers' host:port, refused unless allow-listed with their port. */
	protectedHosts: readonly ProtectedHost[];
	resolve: Resolver;
}

/** Everything that can be known about `url` before connecting: the URL rules, then DNS. */
export async function vetHop(url: URL, guard: Guard): Promise<Target> {
	const target = vetUrl(url, guard.allowedHosts);
	if (target.isLiteral) await refuseProtected(target, [target.host], guard);
	else await checkedAddresses(target, guard);
	return target;
}

async function refuseProtected(target: Target, addresses: readonly string[], guard: Guard): Promise<void> {
	const entry = await protectedEntry(target, addresses, guard);
	if (entry) {
		const where = `${entry.host.includes(':') ? `[${entry.host}]` : entry.host}:${entry.port}`;
		refuse(
			target.url,
			`it reaches ${where}, the address of Sophos itself or of a model server (FETCH_PROTECTED_HOSTS); only FETCH_ALLOWED_HOSTS naming it with its port opens it`
		);
	}
}

async function checkedAddresses(target: Target, guard: Guard): Promise<LookupAddress[]> {
	const { resolve } = guard;
	let addresses: LookupAddress[];
	try {
		addresses = await resolve(target.host);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
		throw new FetchError(`Failed to fetch ${target.url.href}: could not resolve ${target.host} (${code}).`);
	}
	if (addresses.length === 0) {
		throw new FetchError(`Failed to fetch ${target.url.href}: ${target.host} has no addresses.`);
	}
	for (const { address } of addresses) {
		const risk = addressRisk(address, target.allowListed);
		if (risk) refuse(target.url, `${target.host} resolves to ${address}, which is ${risk}`);
	}
	await refuseProtected(
		target,
		addresses.map((entry) => entry.address),
		guard
	);
	return addresses;
}

/** A net `lookup` that hands the socket only addresses that passed the check, all of them checked. */
export function guardedLookup(target: Target, guard: Guard): LookupFunction {
	return (_hostname, options, callback) => {
		checkedAddresses(target, guard).then(
			(addresses) => {
				const usable = options.family === 4 || options.family === 6
					? addresses.filter((entry) => entry.family === options.family)
					: addresses;
				const first = usable[0];
				if (!first) {
					callback(new FetchError(`Failed to fetch ${target.url.href}: no IPv${options.family} address for ${target.host}.`), '');
				} else if (options.all) {
					callback(null, usable);
				} else {
					callback(null, first.address, first.family);
				}
			},
			(error: Error) => callback(error, '')
		);
	};
}
