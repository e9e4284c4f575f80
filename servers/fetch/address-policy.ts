// Decides whether an IP address may be connected to. Pure: no DNS, no sockets.
// The rule is an allow-list ("ordinary public unicast only") rather than a list of bad ranges,
// so a special range we did not think of is refused instead of slipping through.
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

// Cloud metadata services hand out credentials, so they stay refused even for allow-listed hosts.
const METADATA_ADDRESSES = new Set([
	'169.254.169.254', // AWS, GCP, Azure, DigitalOcean, OpenStack
	'169.254.170.2', // AWS ECS task metadata
	'168.63.129.16', // Azure WireServer (a public address, so the range rules alone would allow it)
	'100.100.100.200', // Alibaba Cloud
	'192.0.0.192', // Oracle Cloud
	'fd00:ec2::254' // AWS over IPv6
]);

const RANGE_REASONS: Record<string, string> = {
	loopback: 'a loopback address',
	private: 'a private-network address',
	linkLocal: 'a link-local address',
	carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
	multicast: 'a multicast address',
	unspecified: 'an unspecified address',
	broadcast: 'the broadcast address',
	reserved: 'a reserved address',
	uniqueLocal: 'a unique-local address (fc00::/7)'
};

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');

interface Risk {
	reason: string;
	metadata: boolean;
}

/**
 * Why `address` must not be connected to, or undefined when it may be. An allow-listed host
 * skips the private-address rules but never the metadata ones.
 */
export function addressRisk(address: string, allowListed = false): string | undefined {
	const risk = assess(address);
	if (!risk || (allowListed && !risk.metadata)) return undefined;
	return risk.reason;
}

function assess(address: string): Risk | undefined {
	let parsed: IPv4 | IPv6;
	try {
		parsed = ipaddr.parse(address);
	} catch {
		return { reason: 'not a valid IP address', metadata: false };
	}
	return parsed.kind() === 'ipv4' ? assessV4(parsed as IPv4) : assessV6(parsed as IPv6);
}

function assessV4(ip: IPv4): Risk | undefined {
	if (METADATA_ADDRESSES.has(ip.toString())) return { reason: 'a cloud metadata endpoint', metadata: true };
	const range = ip.range();
	if (range === 'unicast') return undefined;
	return { reason: RANGE_REASONS[range] ?? `a special-purpose address (${range})`, metadata: false };
}

function assessV6(ip: IPv6): Risk | undefined {
	if (METADATA_ADDRESSES.has(ip.toString())) return { reason: 'a cloud metadata endpoint', metadata: true };
	const embedded = embeddedIPv4(ip);
	for (const { form, v4 } of embedded) {
		const risk = assessV4(v4);
		if (risk) return { ...risk, reason: `${form} embedding ${v4.toString()}, which is ${risk.reason}` };
	}
	if (embedded.length > 0) return undefined;
	const range = ip.range();
	if (range === 'rfc6052') return { reason: 'a local-use NAT64 address (64:ff9b:1::/48)', metadata: false };
	if (range !== 'unicast') {
		return { reason: RANGE_REASONS[range] ?? `a special-purpose address (${range})`, metadata: false };
	}
	if (!ip.match(GLOBAL_UNICAST_V6, 3)) {
		return { reason: 'outside the global unicast range (2000::/3)', metadata: false };
	}
	return undefined;
}

interface Embedded {
	form: string;
	v4: IPv4;
}

// IPv6 forms that carry an IPv4 address: a packet to them can end up at that IPv4 address,
// so they are judged by it (e.g. ::ffff:127.0.0.1 is loopback).
function embeddedIPv4(ip: IPv6): Embedded[] {
	const p = ip.parts;
	const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
	switch (ip.range()) {
		case 'ipv4Mapped':
			return [{ form: 'an IPv4-mapped address', v4: ip.toIPv4Address() }];
		case 'rfc6145':
			return [{ form: 'an IPv4-translated address', v4: v4(p[6]!, p[7]!) }];
		case 'rfc6052':
			return ip.match(NAT64_WELL_KNOWN, 96) ? [{ form: 'a NAT64 address', v4: v4(p[6]!, p[7]!) }] : [];
		case '6to4':
			return [{ form: 'a 6to4 address', v4: v4(p[1]!, p[2]!) }];
		case 'teredo':
			// The client address is stored bit-inverted (RFC 4380).
			return [
				{ form: 'a Teredo address', v4: v4(p[2]!, p[3]!) },
				{ form: 'a Teredo address', v4: v4(~p[6]! & 0xffff, ~p[7]! & 0xffff) }
			];
		default:
			return [];
	}
}
