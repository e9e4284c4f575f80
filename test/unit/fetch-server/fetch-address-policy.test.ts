import { describe, expect, it } from 'vitest';
import { addressRisk } from '../../../servers/fetch/address-policy.js';

describe('addressRisk', () => {
	it.each([
		['127.0.0.1', 'a loopback address'],
		['127.255.255.254', 'a loopback address'],
		['10.255.0.1', 'a private-network address'],
		['172.20.1.1', 'a private-network address'],
		['192.168.0.1', 'a private-network address'],
		['169.254.10.10', 'a link-local address'],
		['100.127.255.255', 'a carrier-grade NAT address (100.64.0.0/10)'],
		['0.1.2.3', 'an unspecified address'],
		['239.255.255.250', 'a multicast address'],
		['255.255.255.255', 'the broadcast address'],
		['192.0.2.1', 'a reserved address'],
		['192.31.196.1', 'a special-purpose address (as112)'],
		['169.254.169.254', 'a cloud metadata endpoint'],
		['168.63.129.16', 'a cloud metadata endpoint'],
		['100.100.100.200', 'a cloud metadata endpoint'],
		['192.0.0.192', 'a cloud metadata endpoint'],
		['fd00:ec2::254', 'a cloud metadata endpoint'],
		['::1', 'a loopback address'],
		['::', 'an unspecified address'],
		['fe80::abcd', 'a link-local address'],
		['fdff::1', 'a unique-local address (fc00::/7)'],
		['ff05::2', 'a multicast address'],
		['::ffff:10.0.0.1', 'an IPv4-mapped address embedding 10.0.0.1, which is a private-network address'],
		['2002:a9fe:a9fe::', 'a 6to4 address embedding 169.254.169.254, which is a cloud metadata endpoint'],
		['100::1', 'a special-purpose address (discard)'],
		['fec0::1', 'a special-purpose address (deprecatedSiteLocal)'],
		['not-an-ip', 'not a valid IP address']
	])('%s is %s', (address, reason) => {
		expect(addressRisk(address)).toBe(reason);
	});

	it.each(['1.1.1.1', '93.184.216.34', '151.101.1.69', '2606:4700:4700::1111', '2a00:1450:4001:80e::200e'])(
		'%s is an ordinary public address',
		(address) => {
			expect(addressRisk(address)).toBeUndefined();
		}
	);

	it('lets an allow-listed host use private addresses, but never metadata ones', () => {
		expect(addressRisk('127.0.0.1', true)).toBeUndefined();
		expect(addressRisk('10.0.0.1', true)).toBeUndefined();
		expect(addressRisk('169.254.169.254', true)).toBe('a cloud metadata endpoint');
		expect(addressRisk('::ffff:169.254.169.254', true)).toContain('a cloud metadata endpoint');
	});
});
