import { describe, expect, it } from 'vitest';
import { originRefusal, parseOrigin, type OriginFacts } from '../../../src/lib/server/http/origin-check';

const OWN = 'http://127.0.0.1:3000';
const facts = (over: Partial<OriginFacts>): OriginFacts => ({
	method: 'POST',
	origin: null,
	fetchSite: null,
	host: '127.0.0.1:3000',
	allowed: ['https://sophos.example.com'],
	reads: false,
	...over
});

describe('origin check', () => {
	it.each([
		['a client with neither header (curl, a script)', {}],
		['the page itself', { origin: OWN, fetchSite: 'same-origin' }],
		['the page behind a TLS proxy', { origin: 'https://sophos.lan', host: 'sophos.lan', fetchSite: 'same-origin' }],
		['the page, its Host in capitals', { origin: 'http://sophos.lan:8080', host: 'Sophos.LAN:8080' }],
		['the page, in a browser without fetch metadata', { origin: OWN }],
		['a request the user typed', { fetchSite: 'none' }],
		['an allowed origin, cross-site', { origin: 'https://sophos.example.com', fetchSite: 'cross-site' }],
		['an allowed origin, same-site', { origin: 'https://sophos.example.com', fetchSite: 'same-site' }],
		['a cross-site GET (reading is the host check’s and CORS’s job)', { method: 'GET', origin: 'https://evil.example', fetchSite: 'cross-site' }],
		['a cross-site HEAD', { method: 'HEAD', fetchSite: 'cross-site' }],
		['a cross-site OPTIONS', { method: 'OPTIONS', origin: 'https://evil.example' }]
	])('lets through %s', (_, over) => {
		expect(originRefusal(facts(over))).toBeNull();
	});

	it.each([
		['another site', { origin: 'https://evil.example', fetchSite: 'cross-site' }],
		['another site, without fetch metadata', { origin: 'https://evil.example' }],
		['another port of the same host (same-site)', { origin: 'http://127.0.0.1:5555', fetchSite: 'same-site' }],
		['the other loopback name', { origin: 'http://localhost:3000' }],
		['the same host on its https default port', { origin: 'https://127.0.0.1' }],
		['the proxy name on another port', { origin: 'https://sophos.lan:8443', host: 'sophos.lan' }],
		['a request with no Host', { origin: OWN, host: null }],
		['a sandboxed frame or a file', { origin: 'null' }],
		['an own origin with a trailing slash', { origin: `${OWN}/` }],
		['an own origin in capitals', { origin: 'HTTP://127.0.0.1:3000' }],
		['an allowed origin as a prefix', { origin: 'https://sophos.example.com.evil.example' }],
		['cross-site without Origin', { fetchSite: 'cross-site' }],
		['same-site without Origin', { fetchSite: 'same-site' }],
		['the own origin yet cross-site (a redirect chain)', { origin: OWN, fetchSite: 'cross-site' }]
	])('refuses a POST from %s', (_, over) => {
		expect(originRefusal(facts(over))).toMatch(/ALLOWED_ORIGINS/);
	});

	it.each(['DELETE', 'PUT', 'PATCH', 'post', 'PROPFIND'])('checks %s like POST', (method) => {
		expect(originRefusal(facts({ method, origin: 'https://evil.example' }))).not.toBeNull();
	});

	it('parses ALLOWED_ORIGINS entries as browsers spell origins', () => {
		expect(parseOrigin('https://sophos.example.com')).toBe('https://sophos.example.com');
		expect(parseOrigin('https://Sophos.Example.com/')).toBe('https://sophos.example.com');
		expect(parseOrigin('http://[::1]:3000')).toBe('http://[::1]:3000');
	});

	it.each(['*', 'null', 'sophos.example.com', 'ftp://sophos.example.com', 'https://sophos.example.com/app', 'https://u:p@sophos.example.com', 'https://sophos.example.com:443', 'https://sophos.example.com?x'])(
		'refuses the ALLOWED_ORIGINS entry %j, naming it',
		(entry) => {
			expect(() => parseOrigin(entry)).toThrow(`"${entry}" is not an origin`);
		}
	);
});
