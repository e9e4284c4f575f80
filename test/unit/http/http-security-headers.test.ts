import { describe, expect, it } from 'vitest';
import { apiCacheControl, securityHeaders } from '../../../src/lib/server/http/security-headers';

describe('security headers', () => {
	const common = {
		'X-Content-Type-Options': 'nosniff',
		'Referrer-Policy': 'no-referrer',
		'Cross-Origin-Resource-Policy': 'same-origin'
	};

	it('sets nosniff, a referrer policy and CORP everywhere, no-store on the API only', () => {
		expect(securityHeaders('/', null)).toEqual(common);
		expect(securityHeaders('/apiary', null)).toEqual(common);
		expect(securityHeaders('/api/conversations', null)).toEqual({ ...common, 'Cache-Control': 'no-store' });
		expect(securityHeaders('/api', null)).toEqual({ ...common, 'Cache-Control': 'no-store' });
	});

	it.each([
		[null, 'no-store'],
		['', 'no-store'],
		['no-store', 'no-store'],
		['private, NO-STORE', 'private, NO-STORE'],
		['no-cache, no-transform', 'no-store, no-cache, no-transform'],
		['public, max-age=60', 'no-store, public, max-age=60'],
		['no-store-ish', 'no-store, no-store-ish']
	])('turns Cache-Control %j into %j', (current, expected) => {
		expect(apiCacheControl(current)).toBe(expected);
	});
});
