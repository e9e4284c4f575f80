import { describe, expect, it } from 'vitest';
import { readinessAdvice } from '../../../src/lib/client/readiness-advice';
import { remoteServers } from '../../../src/lib/client/remote-servers';
import type { Readiness } from '../../../src/lib/protocol';

const readiness = (mcp: Readiness['checks']['mcp']): Readiness => ({
	status: 'error',
	message: 'MCP server "docs" needs sign-in',
	defaultModel: 'ollama/qwen3',
	checks: { database: { status: 'ok' }, model: { status: 'ok' }, providers: {}, mcp }
});

describe('remote servers to sign in to or out of', () => {
	const state = readiness({
		docs: { status: 'sign-in', tools: 0, signIn: '/api/mcp/docs/sign-in', message: 'MCP server "docs" needs sign-in' },
		issues: { status: 'ok', tools: 3, oauth: true },
		memory: { status: 'ok', tools: 9 },
		broken: { status: 'error', tools: 0, message: 'down' }
	});

	it('lists those that need sign-in with its path, and those signed in; not local or down ones', () => {
		expect(remoteServers(state)).toEqual([
			{ name: 'docs', state: 'sign-in', signIn: '/api/mcp/docs/sign-in' },
			{ name: 'issues', state: 'signed-in' }
		]);
		expect(remoteServers(null)).toEqual([]);
	});

	it('advises signing in with a link, apart from a server that is down', () => {
		const advice = readinessAdvice(state);
		expect(advice.find((a) => a.key === 'mcp:docs')).toMatchObject({
			title: 'Tool server "docs" needs sign-in: runs go on without its tools',
			link: { href: '/api/mcp/docs/sign-in', label: 'Sign in to docs' }
		});
		expect(advice.find((a) => a.key === 'mcp:broken')?.link).toBeUndefined();
		expect(advice.map((a) => a.key)).toEqual(['mcp:docs', 'mcp:broken']);
	});
});
