// The MCP conformance package's client auth scenarios that Sophos's OAuth client passes, each run as
// the README's Tests section says: the package starts the scenario's servers on loopback ports and
// runs scripts/mcp-conformance-client.ts against them (Sophos's supervisor of a remote server), then
// judges what they saw. A scenario passes only with every check a success and no warning.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/service';

const CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const CLIENT = `${process.execPath} --import tsx scripts/mcp-conformance-client.ts`;

async function scenario(name: string): Promise<string> {
	const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, 'client', '--command', CLIENT, '--scenario', name], {
		cwd: ROOT,
		maxBuffer: 16 * 1024 * 1024
	});
	return (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, '');
}

describe('MCP conformance: client auth scenarios', () => {
	// Every auth scenario of 0.1.10 but auth/basic-cimd, which warns: Sophos has no https URL to publish a client metadata document at.
	it.each([
		'auth/metadata-default',
		'auth/metadata-var1',
		'auth/metadata-var2',
		'auth/metadata-var3',
		'auth/2025-03-26-oauth-metadata-backcompat',
		'auth/2025-03-26-oauth-endpoint-fallback',
		'auth/scope-from-www-authenticate',
		'auth/scope-from-scopes-supported',
		'auth/scope-omitted-when-undefined',
		'auth/scope-step-up',
		'auth/scope-retry-limit',
		'auth/token-endpoint-auth-basic',
		'auth/token-endpoint-auth-post',
		'auth/token-endpoint-auth-none',
		'auth/client-credentials-basic',
		'auth/client-credentials-jwt'
	])('%s passes', async (name) => {
		const output = await scenario(name);
		expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
		expect(output).toContain('OVERALL: PASSED');
	});
});
