import { describe, expect, it } from 'vitest';
import { displayUrl, urlSecrets } from '../../../src/lib/server/secrets/display-url';

describe('displayUrl: a configured URL as messages show it', () => {
	it.each([
		['http://127.0.0.1:11434', 'http://127.0.0.1:11434'],
		['http://127.0.0.1:1234/v1', 'http://127.0.0.1:1234/v1'],
		['http://user:secret@host:8000/v1', 'http://host:8000/v1'],
		['http://user@host/v1', 'http://host/v1'],
		['https://a:b@c@host/v1', 'https://host/v1'],
		['https://api.example/v1?api-key=sk-123', 'https://api.example/v1?api-key=***'],
		['https://api.example/v1?version=2&sig=abc&flag', 'https://api.example/v1?version=***&sig=***&flag'],
		['https://api.example/v1#access_token=tok', 'https://api.example/v1#***'],
		['postgres://sophos:pw@db.lan:5432/sophos?sslmode=require', 'postgres://db.lan:5432/sophos?sslmode=***'],
		// Refused by the settings as URLs, shown without their secrets all the same.
		['http://me:pw@127.0.0.1:99999/v1?api-key=k', 'http://127.0.0.1:99999/v1?api-key=***'],
		['me:pw@host:1', 'host:1'],
		['', '']
	])('%s → %s', (url, shown) => {
		expect(displayUrl(url)).toBe(shown);
	});
});

describe('urlSecrets: what of a URL the redactor looks for elsewhere', () => {
	it('the password raw, encoded, with its user, and as a Basic credential', () => {
		const secrets = urlSecrets('http://sophos:p%40ss-word@host/v1');
		expect(secrets).toEqual(expect.arrayContaining(['p@ss-word', 'p%40ss-word', 'sophos:p@ss-word', Buffer.from('sophos:p@ss-word').toString('base64')]));
	});

	it('a user without a password is the credential', () => {
		expect(urlSecrets('https://ghp_token123@host/mcp')).toContain('ghp_token123');
	});

	it('query values named like secrets, not the others', () => {
		const secrets = urlSecrets('https://h/v1?api-key=k-1&access_token=t-2&sig=s-3&version=2024-10-01');
		expect(secrets).toEqual(expect.arrayContaining(['k-1', 't-2', 's-3']));
		expect(secrets).not.toContain('2024-10-01');
	});

	it('a value that is not a URL still gives up its password', () => {
		expect(urlSecrets('http://me:pw-1234@127.0.0.1:99999/v1?api-key=qk')).toEqual(expect.arrayContaining(['pw-1234', 'qk']));
	});

	it('a plain URL holds none', () => {
		expect(urlSecrets('http://127.0.0.1:11434')).toEqual([]);
	});
});
