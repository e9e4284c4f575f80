import { describe, expect, it } from 'vitest';
import { fetchProtectedHosts } from '../../../src/lib/server/mcp/fetch-protected-hosts';
import { parseProtectedHosts } from '../../../servers/fetch/protected-hosts.js';

describe('the addresses the fetch server is told to refuse', () => {
	it('lists the listen address and every model server, with default ports and without credentials or paths', () => {
		const list = fetchProtectedHosts({ HOST: '127.0.0.1', PORT: 3000 }, [
			'http://127.0.0.1:11434',
			'https://user:secret@api.example.com/v1?api-key=k',
			'http://gpu.lan/v1',
			'http://[::1]:1234/v1',
			'http://127.0.0.1:11434/'
		]);
		expect(list).toBe('127.0.0.1:3000,127.0.0.1:11434,api.example.com:443,gpu.lan:80,[::1]:1234');
		// What the fetch server parses it into.
		expect(parseProtectedHosts(list)).toEqual([
			{ host: '127.0.0.1', port: 3000 },
			{ host: '127.0.0.1', port: 11434 },
			{ host: 'api.example.com', port: 443 },
			{ host: 'gpu.lan', port: 80 },
			{ host: '::1', port: 1234 }
		]);
	});

	it('brackets an IPv6 listen address and leaves out a port the settings cannot know', () => {
		expect(parseProtectedHosts(fetchProtectedHosts({ HOST: '::', PORT: 8080 }, []))).toEqual([{ host: '::', port: 8080 }]);
		expect(fetchProtectedHosts({ HOST: '0.0.0.0', PORT: 0 }, ['http://localhost:11434'])).toBe('localhost:11434');
	});
});
