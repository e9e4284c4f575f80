// The lookup handed to each socket re-resolves and re-checks, so a DNS answer that changes after
// the first check (rebinding) is caught on the address the socket would really use.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { FetchError } from '../../../servers/fetch/errors.js';
import { guardedGet } from '../../../servers/fetch/guarded-request.js';
import { guardedLookup, vetHop, type Guard, type Resolver } from '../../../servers/fetch/target-guard.js';
import { parseUrl, vetUrl } from '../../../servers/fetch/url-policy.js';

const answer = (...addresses: string[]): LookupAddress[] =>
	addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

/** A resolver whose answers change from call to call, as a rebinding attacker's would. */
function rebinding(...answers: LookupAddress[][]): Resolver & { calls: number } {
	const resolver = Object.assign(
		async () => {
			const next = answers[Math.min(resolver.calls, answers.length - 1)]!;
			resolver.calls++;
			return next;
		},
		{ calls: 0 }
	);
	return resolver;
}

type Outcome = { error: Error | null; address: string | LookupAddress[]; family?: number };

function lookup(
	resolve: Resolver,
	url: string,
	options: { all?: boolean; family?: number } = {},
	hosts: Pick<Guard, 'allowedHosts' | 'protectedHosts'> = { allowedHosts: [], protectedHosts: [] }
): Promise<Outcome> {
	const target = vetUrl(parseUrl(url), hosts.allowedHosts);
	return new Promise((done) =>
		guardedLookup(target, { ...hosts, resolve })(target.host, options, (error, address, family) => done({ error, address, family }))
	);
}

describe('guarded socket lookup', () => {
	it('refuses when the name rebinds to loopback between the check and the connect', async () => {
		const resolve = rebinding(answer('93.184.216.34'), answer('127.0.0.1'));
		await expect(vetHop(parseUrl('http://rebind.example/'), { allowedHosts: [], protectedHosts: [], resolve })).resolves.toBeDefined();
		const { error } = await lookup(resolve, 'http://rebind.example/');
		expect(error).toBeInstanceOf(FetchError);
		expect(error?.message).toBe(
			'Refusing to fetch http://rebind.example/: rebind.example resolves to 127.0.0.1, which is a loopback address.'
		);
		expect(resolve.calls).toBe(2);
	});

	it('refuses when an allowed name rebinds to a model server\'s address (FETCH_PROTECTED_HOSTS)', async () => {
		const hosts = { allowedHosts: [{ host: 'wiki.lan' }], protectedHosts: [{ host: '10.0.0.7', port: 80 }] };
		const resolve = rebinding(answer('10.0.0.8'), answer('10.0.0.7'));
		await expect(vetHop(parseUrl('http://wiki.lan/'), { ...hosts, resolve })).resolves.toBeDefined();
		const { error } = await lookup(resolve, 'http://wiki.lan/', {}, hosts);
		expect(error?.message).toContain('it reaches 10.0.0.7:80, the address of Sophos itself or of a model server');
	});

	it('refuses when any one of the addresses is unsafe', async () => {
		const { error } = await lookup(rebinding(answer('93.184.216.34', '169.254.169.254')), 'http://cloud.example/', {
			all: true
		});
		expect(error?.message).toContain('169.254.169.254, which is a cloud metadata endpoint');
	});

	it('hands every checked address to a socket that asks for all of them', async () => {
		const outcome = await lookup(rebinding(answer('93.184.216.34', '2606:4700::1')), 'http://ok.example/', { all: true });
		expect(outcome).toEqual({ error: null, address: answer('93.184.216.34', '2606:4700::1'), family: undefined });
	});

	it('hands the first address of the wanted family to a socket that asks for one', async () => {
		const resolve = rebinding(answer('2606:4700::1', '93.184.216.34'));
		expect(await lookup(resolve, 'http://ok.example/')).toEqual({ error: null, address: '2606:4700::1', family: 6 });
		expect(await lookup(resolve, 'http://ok.example/', { family: 4 })).toEqual({
			error: null,
			address: '93.184.216.34',
			family: 4
		});
	});

	it('fails clearly when no address of the wanted family exists', async () => {
		const { error } = await lookup(rebinding(answer('93.184.216.34')), 'http://ok.example/', { family: 6 });
		expect(error?.message).toBe('Failed to fetch http://ok.example/: no IPv6 address for ok.example.');
	});
});

describe('guardedGet and a resolver that never answers', () => {
	it('gives up when the signal aborts, without waiting for DNS', async () => {
		const controller = new AbortController();
		const resolve: Resolver = () => {
			controller.abort(new Error('deadline passed'));
			return new Promise(() => {});
		};
		await expect(
			guardedGet(parseUrl('http://slow-dns.example/'), {
				allowedHosts: [],
				protectedHosts: [],
				resolve,
				userAgent: 'test',
				signal: controller.signal
			})
		).rejects.toThrow('deadline passed');
	});
});
