// The SSRF table: hostile URLs each refused with a reason that says why, public ones accepted.
// Names resolve through a stub, so nothing here touches DNS or the network.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { FetchError } from '../../../servers/fetch/errors.js';
import { vetHop, type Guard } from '../../../servers/fetch/target-guard.js';
import { parseUrl } from '../../../servers/fetch/url-policy.js';

const DNS: Record<string, string[]> = {
	localhost: ['127.0.0.1', '::1'],
	'example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
	'intranet.example': ['10.1.2.3'],
	// One good address and one bad: ANY bad address refuses the name.
	'mixed.example': ['93.184.216.34', '192.168.0.10'],
	'v6only.example': ['fd12:3456::1'],
	'mapped.example': ['::ffff:169.254.169.254']
};

const stubResolver = async (hostname: string): Promise<LookupAddress[]> => {
	const addresses = DNS[hostname];
	if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
	return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const guard: Guard = { allowedHosts: [], protectedHosts: [], resolve: stubResolver };

async function refusal(raw: string, with_: Guard = guard): Promise<string> {
	try {
		await vetHop(parseUrl(raw), with_);
	} catch (error) {
		expect(error).toBeInstanceOf(FetchError);
		return (error as Error).message;
	}
	throw new Error(`${raw} was accepted`);
}

const HOSTILE: Array<[url: string, reason: string]> = [
	['http://127.0.0.1/', '127.0.0.1 is a loopback address'],
	['https://127.0.0.1:8443/admin', '127.0.0.1 is a loopback address'],
	['http://localhost/', 'localhost resolves to 127.0.0.1, which is a loopback address'],
	['http://localhost./', 'localhost resolves to 127.0.0.1, which is a loopback address'],
	['http://LOCALHOST:3000/', 'localhost resolves to 127.0.0.1, which is a loopback address'],
	['http://0.0.0.0/', '0.0.0.0 is an unspecified address'],
	['http://0/', '0.0.0.0 is an unspecified address'],
	['http://[::]/', ':: is an unspecified address'],
	['http://[::1]/', '::1 is a loopback address'],
	['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a cloud metadata endpoint'],
	['http://169.254.170.2/v2/credentials', '169.254.170.2 is a cloud metadata endpoint'],
	['http://[fd00:ec2::254]/', 'fd00:ec2::254 is a cloud metadata endpoint'],
	['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal is a cloud metadata endpoint'],
	['http://metadata/', 'metadata is a cloud metadata endpoint'],
	['http://instance-data/latest/', 'instance-data is a cloud metadata endpoint'],
	['http://169.254.1.1/', '169.254.1.1 is a link-local address'],
	['http://10.0.0.1/', '10.0.0.1 is a private-network address'],
	['http://172.16.0.1/', '172.16.0.1 is a private-network address'],
	['http://172.31.255.255/', '172.31.255.255 is a private-network address'],
	['http://192.168.1.1/', '192.168.1.1 is a private-network address'],
	['http://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT address'],
	['http://224.0.0.1/', '224.0.0.1 is a multicast address'],
	['http://255.255.255.255/', '255.255.255.255 is the broadcast address'],
	['http://240.0.0.1/', '240.0.0.1 is a reserved address'],
	['http://198.18.0.1/', '198.18.0.1 is a reserved address'],
	// Literal forms the WHATWG parser normalises to 127.0.0.1 before we ever see them.
	['http://2130706433/', '127.0.0.1 is a loopback address'],
	['http://0x7f000001/', '127.0.0.1 is a loopback address'],
	['http://0177.0.0.1/', '127.0.0.1 is a loopback address'],
	['http://127.1/', '127.0.0.1 is a loopback address'],
	['http://0x7f.1/', '127.0.0.1 is a loopback address'],
	['http://127.0.0.1./', '127.0.0.1 is a loopback address'],
	['http://%31%32%37.0.0.1/', '127.0.0.1 is a loopback address'],
	['http://１２７.０.０.１/', '127.0.0.1 is a loopback address'],
	// IPv6 spellings that carry an IPv4 address are judged by it.
	['http://[::ffff:127.0.0.1]/', 'an IPv4-mapped address embedding 127.0.0.1, which is a loopback address'],
	['http://[::ffff:7f00:1]/', 'an IPv4-mapped address embedding 127.0.0.1, which is a loopback address'],
	['http://[::ffff:169.254.169.254]/', 'embedding 169.254.169.254, which is a cloud metadata endpoint'],
	['http://[::ffff:0:a00:1]/', 'an IPv4-translated address embedding 10.0.0.1, which is a private-network address'],
	['http://[64:ff9b::7f00:1]/', 'a NAT64 address embedding 127.0.0.1, which is a loopback address'],
	['http://[64:ff9b:1::a]/', 'a local-use NAT64 address'],
	['http://[2002:c0a8:101::1]/', 'a 6to4 address embedding 192.168.1.1, which is a private-network address'],
	['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', 'a Teredo address embedding 10.0.0.1, which is a private-network address'],
	['http://[::7f00:1]/', 'outside the global unicast range (2000::/3)'],
	['http://[fe80::1]/', 'fe80::1 is a link-local address'],
	['http://[fc00::1]/', 'fc00::1 is a unique-local address (fc00::/7)'],
	['http://[ff02::1]/', 'ff02::1 is a multicast address'],
	['http://[2001:db8::1]/', '2001:db8::1 is a reserved address'],
	// Names: every resolved address counts.
	['http://intranet.example/', 'intranet.example resolves to 10.1.2.3, which is a private-network address'],
	['http://mixed.example/', 'mixed.example resolves to 192.168.0.10, which is a private-network address'],
	['http://v6only.example/', 'v6only.example resolves to fd12:3456::1, which is a unique-local address'],
	['http://mapped.example/', 'mapped.example resolves to ::ffff:169.254.169.254, which is an IPv4-mapped address embedding 169.254.169.254'],
	// Schemes and credentials.
	['file:///etc/passwd', 'only http: and https: URLs can be fetched, not file:'],
	['gopher://x/', 'only http: and https: URLs can be fetched, not gopher:'],
	['ftp://x/file', 'only http: and https: URLs can be fetched, not ftp:'],
	['data:text/plain,hello', 'only http: and https: URLs can be fetched, not data:'],
	['javascript:alert(1)', 'only http: and https: URLs can be fetched, not javascript:'],
	['ws://example.com/socket', 'only http: and https: URLs can be fetched, not ws:'],
	['http://user:pass@example.com/', 'URLs with credentials (user:password@host) are not allowed'],
	['http://user@example.com/', 'URLs with credentials (user:password@host) are not allowed']
];

describe('SSRF guard: hostile URLs', () => {
	it.each(HOSTILE)('refuses %s', async (url, reason) => {
		const message = await refusal(url);
		expect(message).toMatch(/^Refusing to fetch /);
		expect(message).toContain(reason);
	});

	it('never echoes credentials back', async () => {
		const message = await refusal('https://admin:s3cret@example.com/');
		expect(message).not.toContain('s3cret');
		expect(message).toContain('https://***@example.com/');
	});

	it('reports a name that does not resolve', async () => {
		expect(await refusal('http://nowhere.invalid/')).toBe(
			'Failed to fetch http://nowhere.invalid/: could not resolve nowhere.invalid (ENOTFOUND).'
		);
	});

	it('rejects strings that are not URLs', () => {
		expect(() => parseUrl('not a url')).toThrow('Invalid URL: "not a url"');
		expect(() => parseUrl('http://999999999999/')).toThrow(FetchError);
	});
});

describe('SSRF guard: ordinary public targets', () => {
	it.each([
		'https://example.com/',
		'http://example.com:8080/path?q=1#frag',
		'http://93.184.216.34/',
		'http://8.8.8.8/',
		'http://[2606:4700:4700::1111]/',
		'http://[2002:808:808::1]/', // 6to4 around a public IPv4
		'http://[64:ff9b::808:808]/' // NAT64 around a public IPv4
	])('accepts %s', async (url) => {
		const target = await vetHop(parseUrl(url), guard);
		expect(target.allowListed).toBe(false);
	});
});

describe('SSRF guard: FETCH_ALLOWED_HOSTS', () => {
	const allowing = (...allowedHosts: Guard['allowedHosts']): Guard => ({ allowedHosts, protectedHosts: [], resolve: stubResolver });

	it('lets a listed host:port through, and only on that port', async () => {
		const allow = allowing({ host: '127.0.0.1', port: 8080 });
		expect((await vetHop(parseUrl('http://127.0.0.1:8080/x'), allow)).allowListed).toBe(true);
		expect(await refusal('http://127.0.0.1:8081/x', allow)).toContain('127.0.0.1 is a loopback address');
	});

	it('lets a host listed without a port through on 80 and 443 only, and matches names after resolving them', async () => {
		await expect(vetHop(parseUrl('http://127.0.0.1/'), allowing({ host: '127.0.0.1' }))).resolves.toBeDefined();
		await expect(vetHop(parseUrl('https://127.0.0.1/'), allowing({ host: '127.0.0.1' }))).resolves.toBeDefined();
		await expect(vetHop(parseUrl('http://127.0.0.1:443/'), allowing({ host: '127.0.0.1' }))).resolves.toBeDefined();
		await expect(vetHop(parseUrl('http://intranet.example/'), allowing({ host: 'intranet.example' }))).resolves.toBeDefined();
		await expect(vetHop(parseUrl('https://localhost/'), allowing({ host: 'localhost' }))).resolves.toBeDefined();
	});

	// Issue 21: "127.0.0.1" opened every port, Sophos's own API and Ollama's among them.
	it.each(['http://127.0.0.1:3000/api/conversations', 'http://127.0.0.1:11434/api/tags', 'https://127.0.0.1:8443/', 'http://localhost:5173/'])(
		'refuses %s when its host is listed without a port',
		async (url) => {
			const allow = allowing({ host: '127.0.0.1' }, { host: 'localhost' });
			expect(await refusal(url, allow)).toMatch(/is a loopback address|which is a loopback address/);
		}
	);

	it('uses the scheme default port for a URL without one', async () => {
		await expect(vetHop(parseUrl('http://intranet.example/'), allowing({ host: 'intranet.example', port: 80 }))).resolves.toBeDefined();
		expect(await refusal('https://intranet.example/', allowing({ host: 'intranet.example', port: 80 }))).toContain('10.1.2.3');
	});

	it('matches IPv6 hosts whatever their spelling', async () => {
		const allow = allowing({ host: '::1', port: 9000 });
		await expect(vetHop(parseUrl('http://[0:0:0:0:0:0:0:1]:9000/'), allow)).resolves.toBeDefined();
	});

	it('does not allow a different host that resolves to the same address', async () => {
		expect(await refusal('http://localhost:8080/', allowing({ host: '127.0.0.1', port: 8080 }))).toContain(
			'localhost resolves to 127.0.0.1'
		);
	});

	it('never unlocks cloud metadata, schemes or credentials', async () => {
		expect(await refusal('http://169.254.169.254/', allowing({ host: '169.254.169.254' }))).toContain('cloud metadata');
		expect(await refusal('http://metadata.google.internal/', allowing({ host: 'metadata.google.internal' }))).toContain(
			'cloud metadata'
		);
		expect(await refusal('http://mapped.example/', allowing({ host: 'mapped.example' }))).toContain('cloud metadata');
		expect(await refusal('ftp://127.0.0.1/', allowing({ host: '127.0.0.1' }))).toContain('not ftp:');
		expect(await refusal('http://a:b@127.0.0.1/', allowing({ host: '127.0.0.1' }))).toContain('credentials');
	});
});

// A host listed without a port opens 80 and 443 alone, so these matter where Sophos or a model
// server answers on one of those, or on a public address (an API, or a service on 0.0.0.0).
describe('SSRF guard: FETCH_PROTECTED_HOSTS (Sophos and its model servers)', () => {
	const dns = async (hostname: string): Promise<LookupAddress[]> => {
		if (hostname === 'gpu.lan') return [{ address: '10.0.0.7', family: 4 }];
		if (hostname === 'api.openai.example' || hostname === 'cdn-neighbour.example') return [{ address: '93.184.216.34', family: 4 }];
		return stubResolver(hostname);
	};
	const protectedHosts = [
		{ host: '127.0.0.1', port: 80 }, // Sophos with PORT=80
		{ host: 'gpu.lan', port: 80 }, // a models.json server on the LAN
		{ host: 'api.openai.example', port: 443 } // OPENAI_BASE_URL
	];
	const guarding = (...allowedHosts: Guard['allowedHosts']): Guard => ({ allowedHosts, protectedHosts, resolve: dns });
	const PROTECTED = 'the address of Sophos itself or of a model server (FETCH_PROTECTED_HOSTS)';
	const everyLoopback = guarding({ host: '127.0.0.1' }, { host: '127.0.0.2' }, { host: 'localhost' }, { host: '::1' }, { host: '::ffff:7f00:1' });

	it.each([
		['http://127.0.0.1/api/conversations', '127.0.0.1:80'],
		['http://localhost/api/conversations', '127.0.0.1:80'],
		['http://[::ffff:127.0.0.1]/', '127.0.0.1:80'],
		['http://127.0.0.2/', '127.0.0.1:80'],
		['http://[::1]/', '127.0.0.1:80']
	])('refuses %s although its host is allow-listed', async (url, where) => {
		expect(await refusal(url, everyLoopback)).toContain(`it reaches ${where}, ${PROTECTED}`);
	});

	it('refuses a LAN model server by its name and by its address, and a public one by its name', async () => {
		const allow = guarding({ host: 'gpu.lan' }, { host: '10.0.0.7' });
		expect(await refusal('http://gpu.lan/v1/models', allow)).toContain(`it reaches gpu.lan:80, ${PROTECTED}`);
		expect(await refusal('http://10.0.0.7/v1/models', allow)).toContain(`it reaches gpu.lan:80, ${PROTECTED}`);
		expect(await refusal('https://api.openai.example/v1/models', guarding())).toContain(`it reaches api.openai.example:443, ${PROTECTED}`);
	});

	it('opens one only when FETCH_ALLOWED_HOSTS names that host with its port', async () => {
		await expect(vetHop(parseUrl('http://127.0.0.1/'), guarding({ host: '127.0.0.1', port: 80 }))).resolves.toBeDefined();
		await expect(vetHop(parseUrl('http://gpu.lan/'), guarding({ host: 'gpu.lan', port: 80 }))).resolves.toBeDefined();
		await expect(vetHop(parseUrl('https://api.openai.example/'), guarding({ host: 'api.openai.example', port: 443 }))).resolves.toBeDefined();
		// Named with its port under another name is not naming it.
		expect(await refusal('http://localhost/', guarding({ host: '127.0.0.1', port: 80 }, { host: 'localhost' }))).toContain(PROTECTED);
	});

	it('judges a public model server by its name alone: a site on the same public address, or another port, stays reachable', async () => {
		await expect(vetHop(parseUrl('https://cdn-neighbour.example/'), guarding())).resolves.toBeDefined();
		await expect(vetHop(parseUrl('http://api.openai.example/'), guarding())).resolves.toBeDefined();
	});

	it('treats a service listening on 0.0.0.0 or :: as every address of this machine', async () => {
		for (const host of ['0.0.0.0', '::']) {
			const everywhere: Guard = { allowedHosts: [{ host: '127.0.0.5' }, { host: '::1' }], protectedHosts: [{ host, port: 80 }], resolve: dns };
			expect(await refusal('http://127.0.0.5/', everywhere)).toContain(PROTECTED);
			expect(await refusal('http://[::1]/', everywhere)).toContain(PROTECTED);
		}
	});
});
