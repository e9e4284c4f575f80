import { describe, expect, it } from 'vitest';
import { parseAllowedHosts } from '../../../servers/fetch/allowed-hosts.js';
import { DEFAULT_SETTINGS, parseSettings } from '../../../servers/fetch/settings.js';

describe('fetch server settings', () => {
	it('uses the defaults when nothing is set, and treats empty strings as unset', () => {
		expect(parseSettings({})).toEqual({ timeoutMs: 15_000, maxBytes: 5_242_880, ignoreRobots: false, allowedHosts: [], protectedHosts: [] });
		expect(
			parseSettings({ FETCH_TIMEOUT_MS: '', FETCH_MAX_BYTES: '', FETCH_IGNORE_ROBOTS: '', FETCH_ALLOWED_HOSTS: '', FETCH_PROTECTED_HOSTS: '' })
		).toEqual(DEFAULT_SETTINGS);
	});

	it('reads every variable', () => {
		expect(
			parseSettings({
				FETCH_TIMEOUT_MS: '300',
				FETCH_MAX_BYTES: ' 1024 ',
				FETCH_IGNORE_ROBOTS: 'TRUE',
				FETCH_ALLOWED_HOSTS: 'wiki.lan, 127.0.0.1:8080',
				FETCH_PROTECTED_HOSTS: '127.0.0.1:3000,localhost:11434,[::1]:1234',
				UNRELATED: 'ignored'
			})
		).toEqual({
			timeoutMs: 300,
			maxBytes: 1024,
			ignoreRobots: true,
			allowedHosts: [{ host: 'wiki.lan' }, { host: '127.0.0.1', port: 8080 }],
			protectedHosts: [
				{ host: '127.0.0.1', port: 3000 },
				{ host: 'localhost', port: 11434 },
				{ host: '::1', port: 1234 }
			]
		});
		expect(parseSettings({ FETCH_IGNORE_ROBOTS: 'false' }).ignoreRobots).toBe(false);
		expect(parseSettings({ FETCH_IGNORE_ROBOTS: '1' }).ignoreRobots).toBe(true);
	});

	it.each([
		['FETCH_TIMEOUT_MS', 'abc', 'Invalid FETCH_TIMEOUT_MS: expected a whole number of milliseconds, got "abc"'],
		['FETCH_TIMEOUT_MS', '1.5', 'Invalid FETCH_TIMEOUT_MS: expected a whole number of milliseconds, got "1.5"'],
		['FETCH_TIMEOUT_MS', '0', 'Invalid FETCH_TIMEOUT_MS: must be 1 or more milliseconds'],
		['FETCH_TIMEOUT_MS', '9999999999', 'Invalid FETCH_TIMEOUT_MS: must be at most 2147483647 milliseconds'],
		['FETCH_MAX_BYTES', '-5', 'Invalid FETCH_MAX_BYTES: expected a whole number of bytes, got "-5"'],
		['FETCH_MAX_BYTES', '5MB', 'Invalid FETCH_MAX_BYTES: expected a whole number of bytes, got "5MB"'],
		['FETCH_IGNORE_ROBOTS', 'maybe', 'Invalid FETCH_IGNORE_ROBOTS: expected true or false, got "maybe"'],
		['FETCH_ALLOWED_HOSTS', 'example.com:http', 'Invalid FETCH_ALLOWED_HOSTS: "example.com:http" has an invalid port'],
		['FETCH_ALLOWED_HOSTS', 'ok.lan,bad host', 'Invalid FETCH_ALLOWED_HOSTS: "bad host" is not a hostname or IP address'],
		['FETCH_PROTECTED_HOSTS', '127.0.0.1:3000,localhost', 'Invalid FETCH_PROTECTED_HOSTS: "localhost" has no port'],
		['FETCH_PROTECTED_HOSTS', 'a b:1', 'Invalid FETCH_PROTECTED_HOSTS: "a b:1" is not a hostname or IP address']
	])('%s=%s is an error naming the variable', (name, value, message) => {
		expect(() => parseSettings({ [name]: value })).toThrow(message);
	});

	it('reports every bad variable at once', () => {
		expect(() => parseSettings({ FETCH_TIMEOUT_MS: 'x', FETCH_IGNORE_ROBOTS: 'y' })).toThrow(
			/Invalid FETCH_TIMEOUT_MS: .*\nInvalid FETCH_IGNORE_ROBOTS: /
		);
	});
});

describe('FETCH_ALLOWED_HOSTS entries', () => {
	it('parses hosts, IPs and host:port in their usual spellings', () => {
		expect(parseAllowedHosts(' Wiki.LAN. ,10.0.0.5, 10.0.0.6:8443,::1,[::1]:9000,[fd00::1],, ')).toEqual([
			{ host: 'wiki.lan' },
			{ host: '10.0.0.5' },
			{ host: '10.0.0.6', port: 8443 },
			{ host: '::1' },
			{ host: '::1', port: 9000 },
			{ host: 'fd00::1' }
		]);
	});

	it.each(['host:0', 'host:65536', 'host:', 'a/b', 'http://host', '[::1]:x', 'under score.lan'])('rejects %s', (entry) => {
		expect(() => parseAllowedHosts(entry)).toThrow(entry);
	});
});
