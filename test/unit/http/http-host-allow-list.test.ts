import { describe, expect, it } from 'vitest';
import {
	isAllowedHost,
	isLoopbackHost,
	isLoopbackListenAddress,
	parseHost,
	parseHostEntry
} from '../../../src/lib/server/http/host-allow-list';

describe('host allow-list', () => {
	it.each([
		'localhost',
		'localhost:3000',
		'LOCALHOST:3000',
		'127.0.0.1',
		'127.0.0.1:1',
		'127.0.0.1:65535',
		'127.255.255.254:8080',
		'127.1.2.3',
		'[::1]',
		'[::1]:3000',
		'[0:0:0:0:0:0:0:1]:3000'
	])('answers the loopback Host %s', (host) => {
		expect(isAllowedHost(host, [])).toBe(true);
	});

	// What a rebinding page, a look-alike or a malformed request sends: none of it is loopback.
	it.each([
		'evil.example',
		'evil.example:3000',
		'localhost.evil.example',
		'localhost.evil.example:3000',
		'127.0.0.1.nip.io',
		'127.0.0.1.nip.io:3000',
		'www.localhost.evil.example',
		'evil-localhost',
		'localhost.',
		'localhost..',
		'.localhost',
		'127.1',
		'127.0.1',
		'2130706433',
		'0x7f000001',
		'0x7f.0.0.1',
		'0177.0.0.1',
		'127.000.000.001',
		'127.0.0.256',
		'127.0.0.1.',
		'::1',
		'[::1',
		'::1]:3000',
		'[::ffff:127.0.0.1]',
		'[::ffff:7f00:1]:3000',
		'[::]',
		'0.0.0.0',
		'0.0.0.0:3000',
		'10.0.0.1',
		'192.168.1.10:3000',
		'[fe80::1]',
		'localhost:',
		'localhost:0',
		'localhost:65536',
		'localhost:3000:3000',
		'localhost:+3000',
		'localhost: 3000',
		'localhost:3000 ',
		' localhost',
		'local host',
		'localhost@evil.example',
		'evil.example@localhost',
		'evil.example#localhost',
		'evil.example/localhost',
		'localhost\\evil.example',
		'127.0.0.1:3000@evil.example',
		'',
		'a'.repeat(300)
	])('refuses the Host %j', (host) => {
		expect(isAllowedHost(host, [])).toBe(false);
	});

	it('refuses a request with no Host at all', () => {
		expect(isAllowedHost(null, [])).toBe(false);
	});

	it('answers ALLOWED_HOSTS entries: any port without one, only its own with one', () => {
		const allowed = ['sophos.lan', 'proxy.example.com:8443', '192.168.1.10', '[fd00::5]:3000'].map(parseHostEntry);
		for (const host of ['sophos.lan', 'SOPHOS.LAN:3000', 'proxy.example.com:8443', '192.168.1.10:3000', '[fd00:0::5]:3000']) {
			expect(isAllowedHost(host, allowed), host).toBe(true);
		}
		for (const host of ['proxy.example.com', 'proxy.example.com:443', 'sophos.lan.evil.example', 'evil.sophos.lan', '[fd00::5]', '192.168.1.11']) {
			expect(isAllowedHost(host, allowed), host).toBe(false);
		}
	});

	it.each(['*', 'sophos.lan/', 'http://sophos.lan', 'sophos.lan:0', 'sophos.lan:x', 'fd00::5', '[fd00::5', '127.1', 'a b', ''])(
		'refuses the ALLOWED_HOSTS entry %j, naming it',
		(entry) => {
			expect(() => parseHostEntry(entry)).toThrow(`"${entry}" is not a host or host:port`);
		}
	);

	it('spells hosts one way', () => {
		expect(parseHost('[0:0:0:0:0:0:0:1]:80')).toEqual({ host: '::1', port: 80 });
		expect(parseHost('Sophos.LAN')).toEqual({ host: 'sophos.lan' });
		expect(isLoopbackHost('127.9.9.9')).toBe(true);
		expect(isLoopbackHost('128.0.0.1')).toBe(false);
	});

	it.each([
		['127.0.0.1', true],
		['127.0.0.2', true],
		['localhost', true],
		['::1', true],
		['0.0.0.0', false],
		['::', false],
		['192.168.1.10', false],
		['my-laptop', false],
		['', false]
	])('judges HOST=%j loopback: %s', (value, loopback) => {
		expect(isLoopbackListenAddress(value)).toBe(loopback);
	});
});
