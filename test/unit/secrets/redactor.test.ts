import { describe, expect, it } from 'vitest';
import { configuredSecrets } from '../../../src/lib/server/secrets/configured-secrets';
import { REDACTED, Redactor } from '../../../src/lib/server/secrets/redactor';

const KEY = 'sk-live-0123456789abcdef';

describe('Redactor', () => {
	it.each([
		['a key quoted by a server', `401: Incorrect API key provided: ${KEY}`, `401: Incorrect API key provided: ${REDACTED}`],
		['an echoed header', `Authorization: Bearer ${KEY}`, `Authorization: Bearer ${REDACTED}`],
		['the key twice', `${KEY}/${KEY}`, `${REDACTED}/${REDACTED}`],
		['the key percent-encoded in a URL', `GET /v1?key=${encodeURIComponent(KEY)}`, `GET /v1?key=${REDACTED}`],
		['any URL with credentials', 'Request cannot be constructed from a URL that includes credentials: http://u:pw@h:1/v1/chat', 'Request cannot be constructed from a URL that includes credentials: http://h:1/v1/chat'],
		['any URL with a query', 'fetch https://h/v1/models?api-key=zz failed', 'fetch https://h/v1/models?api-key=*** failed'],
		['nothing secret', 'The model "qwen3" is not pulled', 'The model "qwen3" is not pulled']
	])('%s', (_, text, redacted) => {
		expect(new Redactor([KEY]).redact(text)).toBe(redacted);
	});

	it('replaces a secret that holds another whole', () => {
		const redactor = new Redactor(['abcd', 'abcdefgh']);
		expect(redactor.redact('x abcdefgh y abcd')).toBe(`x ${REDACTED} y ${REDACTED}`);
	});

	it('ignores empty, undefined and too short values, which would blank ordinary words', () => {
		const redactor = new Redactor(['', undefined, 'pw', 'abc']);
		expect(redactor.redact('pw abc')).toBe('pw abc');
	});

	it('learns secrets later (an OAuth token on refresh)', () => {
		const redactor = new Redactor();
		expect(redactor.redact(`token ${KEY}`)).toBe(`token ${KEY}`);
		redactor.add(KEY);
		expect(redactor.redact(`token ${KEY}`)).toBe(`token ${REDACTED}`);
	});

	it('redacts every string of a JSON-like value, leaving it untouched', () => {
		const value = { status: 'error', checks: { model: { message: `bad ${KEY}` } }, list: [KEY, 3, null] };
		const copy = structuredClone(value);
		expect(new Redactor([KEY]).redactDeep(value)).toEqual({ status: 'error', checks: { model: { message: `bad ${REDACTED}` } }, list: [REDACTED, 3, null] });
		expect(value).toEqual(copy);
	});

	it('describes an error with its cause chain and fields, redacted', () => {
		const cause = Object.assign(new Error(`upstream said ${KEY}`), { body: { echoed: KEY } });
		const text = new Redactor([KEY]).describe(new Error('model call failed', { cause }));
		expect(text).toContain('model call failed');
		expect(text).toContain('upstream said');
		expect(text).toContain('echoed');
		expect(text).not.toContain(KEY);
	});
});

// A made-up key's shape: what matters is that its body lines are known, not that it signs.
const PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2
OF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r
-----END PRIVATE KEY-----
`;

describe('configuredSecrets', () => {
	it('knows every secret the configuration holds', () => {
		const secrets = configuredSecrets({
			settings: {
				SOPHOS_TOKEN: 'token-0123456789abcdef',
				OPENAI_API_KEY: KEY,
				DATABASE_URL: 'postgres://sophos:db-password@db:5432/sophos',
				OLLAMA_HOST: 'http://o:ollama-pw@127.0.0.1:11434',
				OPENAI_BASE_URL: 'https://api.example/v1?api-key=query-key',
				OLLAMA_MODEL: 'qwen3'
			},
			modelServers: [{ baseUrl: 'http://127.0.0.1:8000/v1', apiKey: 'vllm-key-1234' }],
			mcpServers: [
				{ url: 'https://mcp.example/mcp?token=mcp-query', headers: { Authorization: 'Bearer mcp-bearer', Accept: 'application/json' } },
				{ url: 'https://m2m.example/mcp', oauth: { clientSecret: 'client-secret-42', privateKey: PEM } },
				{ command: 'node' }
			]
		});
		expect(secrets).toEqual(
			expect.arrayContaining([
				'token-0123456789abcdef',
				KEY,
				'postgres://sophos:db-password@db:5432/sophos',
				'db-password',
				'ollama-pw',
				'query-key',
				'vllm-key-1234',
				'mcp-query',
				'Bearer mcp-bearer',
				'mcp-bearer',
				'client-secret-42',
				PEM.trim(),
				'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2',
				'OF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r'
			])
		);
		expect(secrets).not.toContain('-----BEGIN PRIVATE KEY-----');
		expect(secrets).not.toContain('qwen3');
		expect(secrets).not.toContain('application/json');
	});
});
