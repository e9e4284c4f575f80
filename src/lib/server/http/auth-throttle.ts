import ipaddr from 'ipaddr.js';

/** A few typing mistakes cost nothing; past them, every wrong token from an address costs a wait. */
const FREE_FAILURES = 5;
/**
 * The first wait, doubled with every further failure up to MAX_BLOCK_MS: a guesser gets about a
 * hundred tries a day, a person who mistyped waits half a minute.
 */
const BASE_BLOCK_MS = 30_000;
const MAX_BLOCK_MS = 15 * 60_000;
/** Failures this old are forgotten, so a mistake last week does not shorten today's free tries. */
const FORGET_MS = 60 * 60_000;

type Entry = { failures: number; blockedUntil: number; last: number };

/**
 * The client an address counts as. Every loopback address is this machine, and any local process
 * can send from 127.0.0.2, 127.0.0.3, … or ::1 (issue 21): they are one client, with one count.
 * An IPv4 address mapped into IPv6 counts as itself.
 */
export function throttledClient(address: string): string {
	if (!ipaddr.isValid(address)) return address;
	let parsed = ipaddr.parse(address);
	if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
	return parsed.range() === 'loopback' ? 'loopback' : parsed.toString();
}

/**
 * Slows guessing of SOPHOS_TOKEN, per client (throttledClient). While an address waits, its requests are
 * refused without their token being looked at, so a right guess during the wait gains nothing.
 * A right token clears the count. Bounded: past `maxEntries` addresses the one heard from
 * longest ago is forgotten.
 */
export class AuthThrottle {
	private readonly entries = new Map<string, Entry>();

	constructor(
		private readonly now: () => number = Date.now,
		private readonly maxEntries = 10_000
	) {}

	/** Milliseconds `address` must wait before its token is looked at again; 0: look now. */
	retryAfterMs(address: string): number {
		const entry = this.current(throttledClient(address));
		return entry ? Math.max(0, entry.blockedUntil - this.now()) : 0;
	}

	failed(address: string): void {
		address = throttledClient(address);
		const now = this.now();
		const entry = this.current(address) ?? { failures: 0, blockedUntil: 0, last: now };
		entry.failures++;
		entry.last = now;
		if (entry.failures >= FREE_FAILURES) {
			entry.blockedUntil = now + Math.min(MAX_BLOCK_MS, BASE_BLOCK_MS * 2 ** (entry.failures - FREE_FAILURES));
		}
		// Re-inserted so the map's order is the order addresses were last heard from.
		this.entries.delete(address);
		this.entries.set(address, entry);
		if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
	}

	succeeded(address: string): void {
		this.entries.delete(throttledClient(address));
	}

	private current(address: string): Entry | undefined {
		const entry = this.entries.get(address);
		if (entry && this.now() - entry.last > FORGET_MS && this.now() >= entry.blockedUntil) {
			this.entries.delete(address);
			return undefined;
		}
		return entry;
	}
}
