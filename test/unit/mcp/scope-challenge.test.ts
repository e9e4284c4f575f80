import { describe, expect, it } from 'vitest';
import { readChallenge, scopeUnion, StepUps } from '../../../src/lib/server/mcp/oauth/scope-challenge';

function answer(status: number, wwwAuthenticate?: string, body: unknown = { error: 'whatever' }): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { 'content-type': 'application/json', ...(wwwAuthenticate ? { 'www-authenticate': wwwAuthenticate } : {}) }
	});
}

describe('readChallenge: what a refusal says of scope', () => {
	it('a 401 asks for sign-in, with the scope its WWW-Authenticate names if any', async () => {
		expect(await readChallenge(answer(401, 'Bearer scope="mcp:basic", resource_metadata="http://a/prm"'))).toEqual({ kind: 'sign-in', scope: 'mcp:basic' });
		expect(await readChallenge(answer(401))).toEqual({ kind: 'sign-in' });
	});

	it('a 403 insufficient_scope asks for a step-up, named in the header or only in the body', async () => {
		expect(await readChallenge(answer(403, 'Bearer error="insufficient_scope", scope="a b"'))).toEqual({ kind: 'step-up', scope: 'a b' });
		expect(await readChallenge(answer(403, 'Bearer scope="a b"', { error: 'insufficient_scope' }))).toEqual({ kind: 'step-up', scope: 'a b' });
		expect(await readChallenge(answer(403, undefined, { error: 'insufficient_scope' }))).toEqual({ kind: 'step-up' });
	});

	it('leaves the body for the SDK to read', async () => {
		const response = answer(403, undefined, { error: 'insufficient_scope' });
		await readChallenge(response);
		expect(await response.json()).toEqual({ error: 'insufficient_scope' });
	});

	it('any other answer is no challenge: a 403 for another reason, a body that is not JSON, a 200, a 500', async () => {
		expect(await readChallenge(answer(403, 'Bearer error="invalid_token"'))).toBeUndefined();
		expect(await readChallenge(new Response('<html>forbidden</html>', { status: 403 }))).toBeUndefined();
		expect(await readChallenge(answer(403, undefined, ['insufficient_scope']))).toBeUndefined();
		expect(await readChallenge(answer(200, 'Bearer error="insufficient_scope"'))).toBeUndefined();
		expect(await readChallenge(answer(500))).toBeUndefined();
	});
});

describe('scopeUnion', () => {
	it('each scope once, in order of first mention, across whitespace', () => {
		expect(scopeUnion('mcp:basic', 'mcp:basic mcp:write')).toBe('mcp:basic mcp:write');
		expect(scopeUnion(' a  b', undefined, 'c\tb a')).toBe('a b c');
	});

	it('undefined when there is no scope at all', () => {
		expect(scopeUnion(undefined, '', '  ')).toBeUndefined();
		expect(scopeUnion()).toBeUndefined();
	});
});

describe('StepUps: the limit on asking a person to sign in again for scope', () => {
	it('allows `limit` in a row, then no more until a request is answered', () => {
		const stepUps = new StepUps(2);
		expect([stepUps.ask(), stepUps.ask(), stepUps.ask(), stepUps.ask()]).toEqual([true, true, false, false]);
		expect(stepUps.count).toBe(2);
		stepUps.answered();
		expect(stepUps.count).toBe(0);
		expect(stepUps.ask()).toBe(true);
	});

	it('a limit of 0 never asks', () => {
		expect(new StepUps(0).ask()).toBe(false);
	});
});
