import { describe, expect, it } from 'vitest';
import { refusalOf } from '../../../servers/tool-host/request-gate';

const TOKEN = 'abcdefghijklmnop0123';
const options = { allowedHosts: [{ host: 'tools.internal', port: 3100 }], token: TOKEN };
const auth = `Bearer ${TOKEN}`;

describe('tool host request gate', () => {
	it.each([
		['a loopback Host with the token', { host: '127.0.0.1:3100', authorization: auth }, null],
		['an allowed name with the token', { host: 'tools.internal:3100', authorization: auth }, null],
		['a rebound name', { host: 'attacker.example:3100', authorization: auth }, 403],
		['an allowed name on another port', { host: 'tools.internal:80', authorization: auth }, 403],
		['no Host', { authorization: auth }, 403],
		['a browser page, even with the token', { host: 'localhost:3100', origin: 'http://localhost:3100', authorization: auth }, 403],
		['no token', { host: 'localhost:3100' }, 401],
		['a wrong token', { host: 'localhost:3100', authorization: 'Bearer abcdefghijklmnop0124' }, 401],
		['the token as a prefix', { host: 'localhost:3100', authorization: `${auth}x` }, 401],
		['another scheme', { host: 'localhost:3100', authorization: `Basic ${TOKEN}` }, 401]
	])('%s', (_name, headers, status) => {
		expect(refusalOf(headers, Object.entries(headers).flat(), options)?.status ?? null).toBe(status);
	});

	it('refuses a second Host header, a hostile one behind a loopback one (issue 21)', () => {
		const headers = { host: '127.0.0.1:3100', authorization: auth };
		const raw = ['Host', '127.0.0.1:3100', 'Authorization', auth, 'host', 'attacker.example'];
		expect(refusalOf(headers, raw, options)).toEqual({ status: 403, message: 'More than one Host header' });
	});

	it('asks for no token when none is set', () => {
		expect(refusalOf({ host: 'localhost:3100' }, ['Host', 'localhost:3100'], { allowedHosts: [], token: undefined })).toBeNull();
	});
});
